import { displayName } from '../../services/contract/control-characters.js';
import { MODES } from '../../services/contract/enums.js';
import { DeliveryListQuery, EndpointBody, EndpointUpdateBody, ProviderAccountBody, RecoverBody } from '../management/schemas.js';
import { MAX_PASSWORD_LENGTH } from './passwords.js';
import { ROLES } from '../store/users.js';

// Request schemas of the dashboard's API. Password length is checked by its handler (passwords.ts)
// so the rule is named in one message; the bound here only keeps huge bodies from reaching scrypt.

const email = { type: 'string', minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' } as const;
const password = { type: 'string', minLength: 1, maxLength: MAX_PASSWORD_LENGTH } as const;
const token = { type: 'string', minLength: 1, maxLength: 100 } as const;
const name = displayName(200);

const object = (required: string[], properties: Record<string, object>) =>
  ({ type: 'object', additionalProperties: false, required, properties }) as const;

export const RegisterBody = object(['email', 'password', 'merchant_name'], { email, password, merchant_name: name });
export const RegisterConfirmBody = object(['token'], { token });
export const SignInBody = object(['email', 'password'], { email: { type: 'string', maxLength: 254 }, password });
export const PasswordResetBody = object(['email'], { email: { type: 'string', maxLength: 254 } });
export const PasswordResetConfirmBody = object(['token', 'password'], { token, password });
export const ModeBody = object(['mode'], { mode: { type: 'string', enum: [...MODES] } });
export const KeyBody = object(['name'], { name });
export const InvitationBody = object(['email', 'role'], { email, role: { type: 'string', enum: [...ROLES] } });
export const AcceptInvitationBody = object(['token', 'password'], { token, password });
export const AcceptOwnerLinkBody = object(['token', 'email', 'password'], { token, email, password });
export const VerificationBody = object(['company_name', 'registration_number', 'country', 'documents'], {
  company_name: name,
  registration_number: { type: 'string', minLength: 1, maxLength: 100 },
  country: { type: 'string', pattern: '^[A-Za-z]{2}$' },
  // References to documents kept elsewhere (a file id, a URL of the merchant's storage), never the files.
  documents: { type: 'array', minItems: 1, maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 500 } },
});

/** A management schema without its `mode`: the dashboard's mode is the session's. */
export function withoutMode<S extends { properties: Record<string, unknown>; required?: readonly string[] }>(schema: S) {
  const { mode: _mode, ...properties } = schema.properties;
  return {
    ...schema, properties, ...(schema.required && { required: schema.required.filter((r) => r !== 'mode') }),
  };
}

export const WebhookEndpointBody = withoutMode(EndpointBody);
export const WebhookEndpointUpdateBody = EndpointUpdateBody;
export const WebhookRecoverBody = RecoverBody;
export const WebhookDeliveryQuery = withoutMode(DeliveryListQuery);
export const ProviderConnectBody = withoutMode(ProviderAccountBody);
export const AllowlistBody = object(['entries'], { entries: {} });

/** Normal form of an email: what is stored and compared. */
export const normalEmail = (value: string) => value.trim().toLowerCase();

// The operator console (operator-routes.ts, operator-console-routes.ts).
export const OperatorSignInBody = object(['token'], { token: { type: 'string', minLength: 1, maxLength: 1000 } });
export const RejectBody = object(['reason'], { reason: { type: 'string', minLength: 1, maxLength: 500 } });
const limit = { type: 'integer', minimum: 1, maximum: 100 } as const;
const cursor = { type: 'string', minLength: 1, maxLength: 100 } as const;
export const OperatorMerchantsQuery = object([], { limit, before: cursor });
export const OperatorVerificationsQuery = object([], {
  status: { type: 'string', enum: ['pending', 'approved', 'rejected'] }, limit,
});
export const AuditLogQuery = object([], { merchant_id: cursor, action: cursor, limit, before: cursor });
