// Stands in for `ndarray-pixels` in the site's build (vite.config.ts): glTF-Transform's functions
// import it for texture work Rigscope never asks of them (resizing, solid-colour checks), and its
// ndarray-ops compiles code with `new Function` as it loads, which the site's CSP refuses.
const unused = () => Promise.reject(new Error('ndarray-pixels is not part of Rigscope’s build'));
export const getPixels = unused;
export const savePixels = unused;
