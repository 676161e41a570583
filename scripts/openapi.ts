/** Writes docs/openapi.json from the engine's route definitions (`npm run openapi`). */
import { writeFileSync } from "node:fs";
import { generatedOpenApi } from "../server/http/openapi-file";

writeFileSync(new URL("../docs/openapi.json", import.meta.url), await generatedOpenApi());
process.stdout.write("docs/openapi.json written\n");
