import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../config";
import { allRoutes } from "../engine";
import { openServices } from "../services";
import { VERSION } from "../version";
import { openApiDocument } from "./openapi";

/** The text of docs/openapi.json, generated from the real routes over a throw-away database. */
export async function generatedOpenApi(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), "ferry-openapi-"));
  const services = await openServices(loadConfig({ FERRY_DATA_DIR: dir, DATABASE_URL: "sqlite::memory:" }));
  try {
    return `${JSON.stringify(openApiDocument(allRoutes(services), VERSION), null, 2)}\n`;
  } finally {
    await services.db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
