import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { LinkRequested } from '../api/types';
import { AuthCard } from '../components/auth-card';
import { Field } from '../components/field';
import { Link } from '../components/link';
import { LinkSentNotice } from '../components/link-delivery';
import { ErrorMessage, Notice } from '../components/messages';
import { LinkPasswordForm } from '../components/password-field';
import { useSubmit } from '../components/use-submit';

// Password reset by an emailed link: asking sends the link (the answer never says whether the
// address exists); the link opens the confirm form with its token.

export function ResetRequestPage() {
  const [sent, setSent] = useState<LinkRequested['link_delivery']>();
  const { busy, error, onSubmit } = useSubmit(async (v) => {
    setSent((await api.post<LinkRequested>('/password-reset', { email: v.email })).link_delivery);
  });
  return (
    <AuthCard title="Reset your password">
      {sent ? (
        <LinkSentNotice delivery={sent} emailed="If an account uses that address, a link to choose a new password is on its way."
          subject="Reset your password" condition="if an account uses that address, " />
      ) : (
        <form onSubmit={onSubmit}>
          <Field id="email" label="Email">
            <input id="email" name="email" type="email" autocomplete="email" required />
          </Field>
          <ErrorMessage error={error} />
          <button type="submit" disabled={busy}>
            Send the link
          </button>
        </form>
      )}
      <p>
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </AuthCard>
  );
}

export function ResetConfirmPage({ token }: { token: string }) {
  const [done, setDone] = useState(false);
  const confirm = async (password: string) => {
    await api.post('/password-reset/confirm', { token, password });
    setDone(true);
  };
  return (
    <AuthCard title="Choose a new password">
      {done ? (
        <Notice>
          Your password is changed and every session was signed out. <Link to="/sign-in">Sign in</Link>
        </Notice>
      ) : (
        <LinkPasswordForm token={token} label="New password" hint="At least 10 characters." submit="Set password" action={confirm} />
      )}
    </AuthCard>
  );
}
