import packageJson from "../package.json" with { type: "json" };

/** The product version, from package.json (inlined by the engine build, so it holds wherever build/engine runs from). */
export const VERSION: string = packageJson.version;
