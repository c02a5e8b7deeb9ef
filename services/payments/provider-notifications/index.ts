// Provider notifications (webhooks from licensed providers): ProviderNotificationsService takes a
// delivery the gateway forwards as received; the account's connector verifies and reads it
// (receive.ts); each notification is recorded once per provider event id and account (store.ts,
// the de-duplication key) and moves the payment or refund it names only forward, through the
// transitions every other path uses (decide.ts, refunds' `notified`). Unsigned hints that are read by
// fetching from the provider (Mollie's) are coalesced per payment id and bounded per account
// (fetch-gate.ts), and those that waited are read by the follow-up (follow-up.ts). A dispute's
// notification goes to its dispute through applyProviderView (disputes.ts), or is recorded
// unmatched with why.
export { createReceiver, type Delivery, type Received, type Receiver } from './receive.js';
export { disputeNotified } from './disputes.js';
export { providerNotificationRoutes } from './service.js';
export { createFollowUps } from './follow-up.js';
