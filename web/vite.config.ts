import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

/**
 * The console is a static single-page app served by the service at /app/ (src/http/console.ts). JSX is compiled
 * for Preact by Vite's own transform (no plugin); everything is bundled, nothing is fetched from elsewhere.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: true,
    chunkSizeWarningLimit: 300,
  },
  server: { proxy: { '/rpc': 'http://127.0.0.1:8080', '/stream': 'http://127.0.0.1:8080', '/api': 'http://127.0.0.1:8080', '/c/': 'http://127.0.0.1:8080' } },
});
