// swagger-ui-dist ships no type declarations. Only its path helper is imported: the package's main module
// would load the whole browser bundle into the server process.
declare module 'swagger-ui-dist/absolute-path.js' {
  const getAbsoluteFSPath: () => string;
  export default getAbsoluteFSPath;
}
