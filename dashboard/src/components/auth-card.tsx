import type { ComponentChildren } from 'preact';

// The frame of the signed-out pages: one centred card with a heading, usable at any width.

export function AuthCard(props: { title: string; children: ComponentChildren }) {
  return (
    <main id="main" class="auth">
      <div class="card">
        <p class="brand">svc dashboard</p>
        <h1>{props.title}</h1>
        {props.children}
      </div>
    </main>
  );
}
