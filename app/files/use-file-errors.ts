import { useCallback } from "react";
import { useTranslation } from "react-i18next";
import { useToast } from "../components/ui/toast";
import { fileErrorText } from "./errors";

/** Shows a failed command as an error notice; the toast shows each distinct text once at a time, for 3 s. */
export function useFileErrors(): (error: unknown) => void {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  return useCallback((error: unknown) => void toast.error(fileErrorText(t, (key) => i18n.exists(key), error)), [t, i18n, toast]);
}
