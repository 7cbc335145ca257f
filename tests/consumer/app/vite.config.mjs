// A plain Vite app: two pages, nothing Rigscope-specific.
export default {
  build: { rollupOptions: { input: { index: 'index.html', element: 'element.html', decoderPath: 'decoder-path.html' } } },
};
