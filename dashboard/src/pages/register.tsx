import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { LinkRequested, Session } from '../api/types';
import { AuthCard } from '../components/auth-card';
import { Field } from '../components/field';
import { Link } from '../components/link';
import { LinkSentNotice } from '../components/link-delivery';
import { ErrorMessage } from '../components/messages';
import { NewPasswordField } from '../components/password-field';
import { useSubmit } from '../components/use-submit';
import { navigate } from '../router';
import { remember, useSession } from '../session';

// Registration by a mailed link: the form's answer is the same whether or not the email has an
// account (it never tells); the link in the mail creates the merchant, its default project and test
// mode, and signs in (ConfirmRegistrationPage).

export function RegisterPage() {
  const [sent, setSent] = useState<{ to: string; delivery: LinkRequested['link_delivery'] }>();
  const { busy, error, onSubmit } = useSubmit(async (v) => {
    const answer = await api.post<LinkRequested>('/register', { merchant_name: v.merchant_name, email: v.email, password: v.password });
    setSent({ to: v.email, delivery: answer.link_delivery });
  });
  return (
    <AuthCard title="Create your account">
      {sent ? (
        <LinkSentNotice delivery={sent.delivery} emailed={`Check your email: we sent a link to ${sent.to}.`}
          subject="Confirm your dashboard account" then="Open it within a day to finish creating your account." />
      ) : (
        <form onSubmit={onSubmit}>
          <Field id="merchant_name" label="Business name">
            <input id="merchant_name" name="merchant_name" autocomplete="organization" required maxLength={200} />
          </Field>
          <Field id="email" label="Email">
            <input id="email" name="email" type="email" autocomplete="email" required />
          </Field>
          <NewPasswordField label="Password" hint="At least 10 characters." />
          <ErrorMessage error={error} />
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create account'}
          </button>
        </form>
      )}
      <p>
        Already registered? <Link to="/sign-in">Sign in</Link>
      </p>
    </AuthCard>
  );
}

/** The mailed link's page: a click (not the page load, which mail scanners make) creates the account. */
export function ConfirmRegistrationPage({ token }: { token: string }) {
  const { set } = useSession();
  const { busy, error, onSubmit } = useSubmit(async () => {
    set(remember(await api.post<Session>('/register/confirm', { token })));
    navigate('/developers/api-keys', { replace: true });
  });
  return (
    <AuthCard title="Confirm your account">
      <form onSubmit={onSubmit}>
        <p>Your email is confirmed by this link. Create the account to start in test mode.</p>
        <ErrorMessage error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Confirm and sign in'}
        </button>
      </form>
    </AuthCard>
  );
}
