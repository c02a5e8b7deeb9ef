// The one address policy for every address the service calls on a merchant's behalf (webhook
// endpoints, provider base URLs): checked when saved and again at connect time on the resolved address.
export * from './address-policy.js';
export * from './safe-agent.js';
export * from './origin-allowlist.js';
