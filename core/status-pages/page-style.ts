// The status page's one style sheet, inline (docs/status-pages.md, "The page"): light and dark by
// `prefers-color-scheme`, and each state by colour and shape at once (height, stripes, dots), the
// words beside or inside every mark. Its hash is the only style the page's CSP allows.

const DARK = `--bg:#0d1117;--fg:#e6edf3;--muted:#a0aab5;--line:#3d444d;--card:#161b22;--ok:#3fb950;--minor:#d29922;--major:#ff6b61;--mnt:#6cb6ff;--none:#768390`;

export const PAGE_STYLE = [
  `:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#57606a;--line:#d0d7de;--card:#f6f8fa;--ok:#1a7f37;--minor:#9a6700;--major:#cf222e;--mnt:#0969da;--none:#8c959f}`,
  `@media (prefers-color-scheme:dark){:root{${DARK}}}`,
  `*{box-sizing:border-box}`,
  `body{margin:0 auto;max-width:62rem;padding:1rem;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;background:var(--bg);color:var(--fg)}`,
  `a{color:inherit}h1{font-size:1.75rem;margin:.25rem 0}h2{font-size:1.2rem;margin:1.75rem 0 .5rem}h3,h4{font-size:1rem;margin:0}`,
  `.muted,footer{color:var(--muted)}footer{margin-top:2rem;font-size:.875rem}`,
  `.ok{--c:var(--ok)}.minor{--c:var(--minor)}.major{--c:var(--major)}.maintenance{--c:var(--mnt)}.none{--c:var(--none)}`,
  `.overall{padding:.75rem 1rem;border:1px solid var(--line);border-left:.5rem solid var(--c);border-radius:.5rem;background:var(--card);font-size:1.15rem;font-weight:600}`,
  `.card{border:1px solid var(--line);border-radius:.5rem;padding:.75rem 1rem;margin:.5rem 0;background:var(--bg)}`,
  `.head{display:flex;justify-content:space-between;align-items:baseline;gap:.25rem 1rem;flex-wrap:wrap}`,
  `.state{margin:0;font-weight:600}.state::before{content:"";display:inline-block;width:.75em;height:.75em;margin-right:.4em;border-radius:50%;background:var(--c)}`,
  `.state.minor::before{border-radius:0;transform:rotate(45deg)}.state.major::before{border-radius:0}.state.none::before{background:none;border:2px solid var(--c)}`,
  `.target{margin:0;font-size:.875rem;color:var(--muted);overflow-wrap:anywhere}`,
  `.bars{display:flex;align-items:flex-end;gap:1px;height:2rem;margin:.5rem 0 .25rem;padding:0;list-style:none}`,
  `.bars li{position:relative;flex:1;min-width:1px;height:100%;background:var(--c)}`,
  `.bars .minor{height:70%}.bars .major{background:repeating-linear-gradient(135deg,var(--c) 0 3px,transparent 3px 5px);outline:1px solid var(--c)}`,
  `.bars .maintenance{height:50%;background:radial-gradient(var(--c) 40%,transparent 45%) 0 0/4px 4px}.bars .none{height:25%}`,
  `.bars span,.hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}`,
  `.bars li:hover span{z-index:1;bottom:110%;left:50%;width:auto;height:auto;padding:.25rem .5rem;clip-path:none;transform:translateX(-50%);border-radius:.25rem;background:var(--fg);color:var(--bg);font-size:.8rem}`,
  `.range{display:flex;justify-content:space-between;gap:1rem;margin:0;font-size:.875rem;color:var(--muted)}`,
  `.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:.5rem 0;padding:0;list-style:none;font-size:.875rem}`,
  `.legend span{display:inline-block;width:.6rem;height:1rem;margin-right:.35rem;vertical-align:middle;background:var(--c)}`,
  `.legend .minor span{height:.7rem}.legend .major span{background:repeating-linear-gradient(135deg,var(--c) 0 3px,transparent 3px 5px);outline:1px solid var(--c)}`,
  `.legend .maintenance span{height:.5rem}.legend .none span{height:.25rem}`,
  `.updates{margin:.5rem 0 0;padding-left:1.25rem}.updates p{margin:.15rem 0}`,
  `.meta{margin:.25rem 0 0;font-size:.875rem;color:var(--muted)}`,
].join('');
