import * as z from "zod";
import { TLS_CA_MAX, TLS_CERT_MAX, TLS_KEY_MAX } from "../../../contract/tls";

/** A PEM file field: at most `max` bytes (the engine's cap; a PEM text is ASCII, so bytes = characters). */
const pemFile = (max: number) => z.file().max(max, "admin.tls.file.too-large");

/** The certificate upload: the certificate (with its chain) and its private key. */
export const tlsUploadSchema = z.object({
  intent: z.literal("upload"),
  certificate: pemFile(TLS_CERT_MAX),
  privateKey: pemFile(TLS_KEY_MAX),
});

/** The client TLS upload: one PEM file of CA certificates. */
export const clientTlsUploadSchema = z.object({
  intent: z.literal("upload"),
  authorities: pemFile(TLS_CA_MAX),
});

/** The largest upload post the web reads (both files and the multipart framing), before parsing. */
export const TLS_FORM_LIMIT = TLS_CERT_MAX + TLS_KEY_MAX + 16 * 1024;
export const CLIENT_TLS_FORM_LIMIT = TLS_CA_MAX + 16 * 1024;

/** The page's confirmation without JavaScript: which action asked for it (`?confirm=`). */
export const confirmSchema = z.enum(["remove", "plain-off", "plain-on"]).nullable().catch(null);
export type ConfirmAsk = z.infer<typeof confirmSchema>;
