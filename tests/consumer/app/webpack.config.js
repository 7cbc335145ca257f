// A plain webpack 5 app: its entries and output, nothing Rigscope-specific.
export default {
  mode: 'production',
  entry: { loaders: './loaders.js', element: './element.js' },
  output: { path: new URL('./dist-webpack/', import.meta.url).pathname },
};
