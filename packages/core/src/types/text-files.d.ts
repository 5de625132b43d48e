// Data files bundled as text (tsup's `text` loader; the vitest config does the same for tests).
declare module '*.conf' {
  const text: string;
  export default text;
}
declare module '*.csv' {
  const text: string;
  export default text;
}
