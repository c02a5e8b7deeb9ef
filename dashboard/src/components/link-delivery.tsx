import type { LinkRequested } from '../api/types';
import { Notice } from './messages';

// What a page says once a link was sent (registration, password reset, invitation): with a mail
// server, the page's own "check your email" text; without one, where the link really is: `npm start`
// prints the mail in its terminal, a deployment without a mail server sends nothing.

type Delivery = LinkRequested['link_delivery'];

/**
 * Where the link is when no mail server is configured, naming the mail's subject to find it by;
 * undefined when it was emailed. `condition` says what the page must not tell ("if an account uses
 * that address, ").
 */
export function withoutMailServer(delivery: Delivery, subject: string, condition = ''): string | undefined {
  if (delivery === 'terminal') {
    return `No mail server is configured, so the link is not emailed: ${condition}it is printed in the terminal where npm start runs, in the mail "${subject}".`;
  }
  if (delivery === 'none') return 'This deployment has no mail server configured, so no link was sent: ask its operator to set one up.';
  return undefined;
}

export function LinkSentNotice(props: {
  delivery: Delivery;
  /** What to say when the link was emailed. */
  emailed: string;
  subject: string;
  condition?: string;
  /** What to do with the link, said after where it is (not when none was sent). */
  then?: string;
}) {
  const where = withoutMailServer(props.delivery, props.subject, props.condition) ?? props.emailed;
  return <Notice>{props.then && props.delivery !== 'none' ? `${where} ${props.then}` : where}</Notice>;
}
