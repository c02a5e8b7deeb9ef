import { ErrorMessage } from './messages';
import { Field } from './field';
import { useSubmit } from './use-submit';

// The password a person chooses (registering, joining a team, resetting); the server's rule is at
// least 10 characters.

export function NewPasswordField(props: { label: string; hint: string }) {
  return (
    <Field id="password" label={props.label} hint={props.hint}>
      <input id="password" name="password" type="password" autocomplete="new-password" required minLength={10} aria-describedby="password-hint" />
    </Field>
  );
}

/** The form an emailed link opens (an invitation, a password reset): a password, sent with the link's token. */
export function LinkPasswordForm(props: { token: string; label: string; hint: string; submit: string; action(password: string): Promise<void> }) {
  const { busy, error, onSubmit } = useSubmit((v) => props.action(v.password));
  return (
    <form onSubmit={onSubmit}>
      <NewPasswordField label={props.label} hint={props.hint} />
      <ErrorMessage error={error} />
      <button type="submit" disabled={busy || !props.token}>
        {props.submit}
      </button>
    </form>
  );
}
