import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { Invitation, LinkRequested, Member } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { withoutMailServer } from '../components/link-delivery';
import { Field } from '../components/field';
import { ErrorMessage, Loading, Notice } from '../components/messages';
import { useLoad } from '../components/use-load';
import { useSubmit } from '../components/use-submit';
import { dateTime, label } from '../format';
import { isOwner, useSignedIn } from '../session';

// The merchant's team: members with their roles, and invitations by email with a role.
// Owners manage everything; developers manage keys and endpoints; read-only members only look.
// Owners also remove members (never the last owner; the member's sessions end) and revoke pending
// invitations; inviting an email again replaces its pending invitation with the new role.

type Change = { kind: 'remove'; member: Member } | { kind: 'revoke'; invitation: Invitation };

const ROLES = [
  { value: 'read_only', text: 'Read-only: sees payments and settings, no secrets, changes nothing' },
  { value: 'developer', text: 'Developer: keys, webhooks, allow-list, payment actions' },
  { value: 'owner', text: 'Owner: everything, including the team and verification' },
];

export function TeamPage() {
  const session = useSignedIn();
  const team = useLoad(() => api.get<{ data: Member[]; invitations?: Invitation[] }>('/members'), []);
  const [notice, setNotice] = useState<string>();
  const [changing, setChanging] = useState<Change>();
  const owner = isOwner(session);
  const { busy, error, onSubmit } = useSubmit(async (v, form) => {
    const invited = await api.post<Invitation & Pick<LinkRequested, 'link_delivery'>>('/invitations', { email: v.email, role: v.role });
    setNotice(withoutMailServer(invited.link_delivery, `You are invited to ${session.merchant.name}`) ?? `Invitation sent to ${v.email}.`);
    form.reset();
    team.reload();
  });

  return (
    <>
      <h1>Team</h1>
      {notice && <Notice>{notice}</Notice>}
      {owner && (
        <form class="panel" onSubmit={onSubmit} aria-label="Invite a member">
          <h2>Invite a member</h2>
          <Field id="invite-email" label="Email">
            <input id="invite-email" name="email" type="email" required />
          </Field>
          <Field id="invite-role" label="Role">
            <select id="invite-role" name="role">
              {ROLES.map((r) => <option key={r.value} value={r.value}>{r.text}</option>)}
            </select>
          </Field>
          <ErrorMessage error={error} />
          <button type="submit" disabled={busy}>Send invitation</button>
        </form>
      )}
      <ErrorMessage error={team.error} />
      {team.loading && !team.data && <Loading what="the team" />}
      {team.data && (
        <>
          <h2>Members</h2>
          <ul class="plain">
            {team.data.data.map((m) => (
              <li key={m.user_id ?? m.id ?? m.email}>
                {m.email} · {label(m.role)}
                {owner && m.user_id && (
                  <> <button type="button" class="secondary small" onClick={() => setChanging({ kind: 'remove', member: m })}
                    aria-label={`Remove ${m.email}`}>Remove</button></>
                )}
              </li>
            ))}
          </ul>
          {(team.data.invitations?.length ?? 0) > 0 && (
            <>
              <h2>Invitations</h2>
              <ul class="plain">
                {team.data.invitations!.map((i) => (
                  <li key={i.id}>
                    {i.email} · {label(i.role)} · {label(i.status ?? 'pending')}
                    {i.expires_at && <> · expires {dateTime(i.expires_at)}</>}
                    {owner && (
                      <> <button type="button" class="secondary small" onClick={() => setChanging({ kind: 'revoke', invitation: i })}
                        aria-label={`Revoke the invitation of ${i.email}`}>Revoke</button></>
                    )}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
      {changing && (
        <ConfirmDialog danger onClose={() => setChanging(undefined)}
          title={changing.kind === 'remove' ? `Remove ${changing.member.email}?` : `Revoke the invitation of ${changing.invitation.email}?`}
          confirmLabel={changing.kind === 'remove' ? 'Remove member' : 'Revoke invitation'}
          onConfirm={async () => {
            if (changing.kind === 'remove') {
              await api.post(`/members/${encodeURIComponent(changing.member.user_id!)}/remove`);
              setNotice(`${changing.member.email} was removed.`);
            } else {
              await api.post(`/invitations/${encodeURIComponent(changing.invitation.id)}/revoke`);
              setNotice(`The invitation of ${changing.invitation.email} was revoked.`);
            }
            team.reload();
          }}>
          <p>
            {changing.kind === 'remove'
              ? 'They lose access to this merchant at once: their sessions here end.'
              : 'Its link stops working.'}
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
