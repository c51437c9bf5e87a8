/** Where bundleEntries writes the bundle of `file` (relative to the root, or absolute under it). */
export declare function bundleOf(dir: string, file: string): string;

/** Compiles `entries` into ES module bundles under `outdir`, unless they are fresh; whether it built. */
export declare function bundleEntries(entries: string[], outdir: string): Promise<boolean>;
