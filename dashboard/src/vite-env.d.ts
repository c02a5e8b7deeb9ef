// Stylesheets are imported for their side effect; vite bundles them into a file of this origin.
declare module '*.css';
