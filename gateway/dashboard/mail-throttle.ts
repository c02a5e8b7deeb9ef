// How many mails the dashboard sends to one address: at most MAIL_LIMIT_PER_ADDRESS in a sliding
// window of MAIL_WINDOW_MS, counting every kind (password resets, registration links, notices,
// invitations). Enough for a person who asks again because a mail is slow; too few to flood a
// mailbox or the deployment's sending reputation. The counts live in Postgres
// (gateway/store/mail-throttle.ts), so every replica spends one budget; the rule is decideAttempt.

export const MAIL_LIMIT_PER_ADDRESS = 5;
export const MAIL_WINDOW_MS = 3_600_000;
