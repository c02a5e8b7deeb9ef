import { useRef, useState } from 'preact/hooks';

// The only place a secret is ever shown: right after it is created or rotated, once, with a copy
// button. It lives in this component's props and nowhere else; "Done" drops it for good.

export function SecretOnce(props: { label: string; secret: string; onDone(): void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'failed' | undefined>();

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied('yes');
    } catch {
      // Without clipboard permission the text is selected for the person to copy.
      input.current?.select();
      setCopied('failed');
    }
  };

  return (
    <section class="secret-once" aria-labelledby="secret-once-title">
      <h3 id="secret-once-title">{props.label}</h3>
      <p>This is the only time it is shown. Copy it now and keep it somewhere safe.</p>
      <div class="row">
        <label class="visually-hidden" for="secret-once-value">
          {props.label}
        </label>
        <input id="secret-once-value" ref={input} readOnly value={props.secret} class="mono" spellcheck={false} autocomplete="off" />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p role="status" class="muted">
        {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? 'Selected: press Ctrl+C (⌘C) to copy.' : ''}
      </p>
      <button type="button" class="secondary" onClick={props.onDone}>
        Done, I have saved it
      </button>
    </section>
  );
}
