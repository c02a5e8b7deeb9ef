import { isOneOf, PAYMENT_METHOD_TYPES } from '../contract/enums.js';
import { variantProblem, type Variant } from './ab-arms.js';
import { strategyProblem, type StrategyConfig } from './strategies/index.js';

/** A merchant's named routing rule, as routing-risk stores it. */
export interface RoutingRule {
  id: string;
  name: string;
  /** Tried lowest first; ties by name, so the order never depends on insertion. */
  priority: number;
  /** Empty: any. */
  currencies: string[];
  /** Empty: any. A rule that lists countries never matches a payment without one. */
  countries: string[];
  /** PaymentMethodType values; empty: any. */
  methods: string[];
  /** Inclusive bounds in minor units; null: unbounded. */
  minAmount: bigint | null;
  maxAmount: bigint | null;
  /** Provider codes or provider account ids (pac_...), in the order to try them. */
  providers: string[];
  /** How the rule orders its accounts (strategies/); absent or null: priority, the listed order. */
  strategy?: StrategyConfig | null;
  /** An A/B arm ranking a sticky share of the rule's payments by another strategy (ab-arms.ts); absent or null: none. */
  variant?: Variant | null;
  /** When the strategy, variant or conditions last changed (creation at first): the report counts decisions since. */
  experimentSince?: Date;
  createdAt: Date;
}

export interface RuleSubject {
  amount: bigint;
  currency: string;
  country?: string;
  methodType: string;
}

/** Built-in rule name; merchants' rules may not take it, so route.rule is never ambiguous. */
export const DEFAULT_RULE = 'default';

export function ruleMatches(rule: RoutingRule, p: RuleSubject): boolean {
  return (
    (rule.currencies.length === 0 || rule.currencies.includes(p.currency)) &&
    (rule.countries.length === 0 || (p.country !== undefined && rule.countries.includes(p.country))) &&
    (rule.methods.length === 0 || rule.methods.includes(p.methodType)) &&
    (rule.minAmount === null || p.amount >= rule.minAmount) &&
    (rule.maxAmount === null || p.amount <= rule.maxAmount)
  );
}

export function byPriority(a: RoutingRule, b: RoutingRule): number {
  return a.priority - b.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

export type NewRule = Omit<RoutingRule, 'id' | 'createdAt' | 'experimentSince'>;

const MAX_PRIORITY = 1_000_000;
const MAX_LIST = 50;

/**
 * The first problem with a new rule as `[param, message]`, or undefined. Codes are expected
 * upper-case already (the gateway normalises them); known provider codes are checked by the store.
 */
export function ruleProblem(rule: NewRule): [string, string] | undefined {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(rule.name)) {
    return ['name', 'name must be 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit'];
  }
  if (rule.name.toLowerCase() === DEFAULT_RULE) return ['name', '"default" is the built-in rule\'s name'];
  if (!Number.isInteger(rule.priority) || rule.priority < 0 || rule.priority > MAX_PRIORITY) {
    return ['priority', `priority must be a whole number from 0 to ${MAX_PRIORITY}`];
  }
  const list = (param: string, values: string[], ok: (v: string) => boolean, what: string) => {
    if (values.length > MAX_LIST) return [param, `${param} may list at most ${MAX_LIST} values`] as [string, string];
    const bad = values.find((v) => !ok(v));
    return bad === undefined ? undefined : ([param, `${param}: "${bad}" is not ${what}`] as [string, string]);
  };
  const problem =
    list('currencies', rule.currencies, (v) => /^[A-Z]{3}$/.test(v), 'a 3-letter currency code') ??
    list('countries', rule.countries, (v) => /^[A-Z]{2}$/.test(v), 'a 2-letter country code') ??
    list('payment_method_types', rule.methods, (v) => isOneOf(PAYMENT_METHOD_TYPES, v), 'a payment method type') ??
    list('providers', rule.providers, (v) => /^[a-z0-9_]{1,64}$/.test(v), 'a provider code or account id');
  if (problem) return problem;
  if (rule.minAmount !== null && rule.minAmount < 0n) return ['min_amount', 'min_amount must not be negative'];
  if (rule.maxAmount !== null && rule.maxAmount < 1n) return ['max_amount', 'max_amount must be at least 1'];
  if (rule.minAmount !== null && rule.maxAmount !== null && rule.minAmount > rule.maxAmount) {
    return ['max_amount', 'max_amount must not be below min_amount'];
  }
  if (rule.providers.length === 0) return ['providers', 'providers must name at least one provider'];
  if (new Set(rule.providers).size !== rule.providers.length) return ['providers', 'providers lists a provider twice'];
  return (rule.strategy === null || rule.strategy === undefined ? undefined : strategyProblem(rule.strategy, rule.providers)) ??
    (rule.variant === null || rule.variant === undefined ? undefined : variantProblem(rule.variant, rule.providers));
}
