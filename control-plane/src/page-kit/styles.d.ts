// The page's stylesheet is imported for esbuild to bundle (control-plane/build.ts); it exports nothing.
declare module "*.css";
