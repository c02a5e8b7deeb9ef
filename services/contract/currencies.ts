// The currencies the contract accepts (active ISO 4217 codes) and each one's minor units: the one
// table the API, the ledger, the connectors, the CSV exports, the webhooks and the dashboard read an
// amount by. Written out rather than asked of Intl, whose digits follow the CLDR data of whichever
// Node or browser runs it (they have moved between versions, and the dashboard ran its own table):
// an amount stored in minor units must read the same everywhere and for ever.
//
// The digits are CLDR's as the product has always used them, not ISO 4217's where the two differ:
// HUF, ISK, IDR, IQD, COP, PKR and the other whole-unit currencies below count whole units (ISO
// gives most of them 2, IQD 3), as people price in them; connectors convert to each provider's own
// table (services/connectors/minor-units.ts).

const ZERO_DIGITS = `AFN ALL BIF CLP COP DJF GNF HUF IDR IQD IRR ISK JPY KMF KPW KRW LAK LBP MGA MMK PKR PYG RWF SOS
SYP UGX VND VUV XAF XOF XPF YER`;
const THREE_DIGITS = 'BHD JOD KWD LYD OMR TND';
const TWO_DIGITS = `AED AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF
CNY CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG ILS INR JMD KES KGS
KHR KYD KZT LKR LRD LSL MAD MDL MKD MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PLN QAR
RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SRD SSP STN SVC SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD UYU UZS VES WST
XCD XCG ZAR ZMW ZWG`;

const codes = (list: string) => list.split(/\s+/);

/** Digits after the decimal point of each currency the contract accepts (EUR 2, JPY 0, KWD 3). */
export const MINOR_UNITS: ReadonlyMap<string, number> = new Map([
  ...codes(ZERO_DIGITS).map((c) => [c, 0] as const),
  ...codes(TWO_DIGITS).map((c) => [c, 2] as const),
  ...codes(THREE_DIGITS).map((c) => [c, 3] as const),
]);

/** Active ISO 4217 currency codes. */
export const CURRENCIES: ReadonlySet<string> = new Set(MINOR_UNITS.keys());
