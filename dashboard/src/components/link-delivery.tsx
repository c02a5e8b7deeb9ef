import type { LinkRequested } from '../api/types';
import { Notice } from './messages';

// What a page says once a link was asked for (registration, password reset): with a mail server,
// the page's own "check your email" text; without one, where the link really is: `npm start` prints
// the mail in its terminal, a deployment without a mail server sends nothing.

export function LinkSentNotice(props: {
  delivery: LinkRequested['link_delivery'];
  /** What to say when the link was emailed. */
  emailed: string;
  /** The mail's subject, to find it in the terminal. */
  subject: string;
  /** Whether the mail is printed at all, when that depends on something the page must not tell ("if an account uses that address, "). */
  condition?: string;
  /** What to do with the link, said after where it is. */
  then?: string;
}) {
  if (props.delivery === 'none') {
    return <Notice>This deployment has no mail server configured, so no link was sent: ask its operator to set one up.</Notice>;
  }
  const where = props.delivery === 'terminal'
    ? `No mail server is configured, so the link is not emailed: ${props.condition ?? ''}it is printed in the terminal where npm start runs, in the mail "${props.subject}".`
    : props.emailed;
  return <Notice>{props.then ? `${where} ${props.then}` : where}</Notice>;
}
