import { createCredentialCodec } from "../../contract/credentials";
import { env } from "./env.server";

/** The engine's credential encoding (docs/credential-encoding.md), with the deployment's salt. */
export const codec = createCredentialCodec(env.FERRY_HASHID_SALT);
