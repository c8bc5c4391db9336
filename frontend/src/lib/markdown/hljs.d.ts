declare module 'highlight.js/lib/common' {
  import hljs from 'highlight.js';
  export default hljs;
}
