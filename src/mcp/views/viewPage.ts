/**
 * A view's one self-contained HTML document, put together once at startup from the files beside
 * it: the shared stylesheet, the bridge to the host, the shared rendering and the view's own
 * script, all inline, so a view loads nothing from anywhere (its CSP metadata declares no domain).
 */
import { readFileSync } from 'node:fs';

const part = (file: string) => readFileSync(new URL(file, import.meta.url), 'utf8');

/** `title` is ours (never calendar text); `script` names the view's file beside this one. */
export function viewPage(title: string, script: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
${part('view.css')}</style>
</head>
<body>
<main id="view" aria-live="polite"><p class="quiet">Waiting for the result…</p></main>
<script>
${[part('bridge.js'), part('render.js'), part(script)].join('\n')}</script>
</body>
</html>
`;
}
