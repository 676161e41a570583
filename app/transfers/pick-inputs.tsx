import type { RefObject } from "react";
import { itemsFromFileList } from "./drop";
import type { UploadBatch } from "./types";

/**
 * The hidden file and folder inputs behind a page's "files" and "folder" buttons (which click them
 * through the refs): what is picked goes to `onPick`, and the input is emptied so that the same
 * pick works again.
 */
export function PickInputs({
  filesRef,
  folderRef,
  filesLabel,
  folderLabel,
  onPick,
}: {
  filesRef: RefObject<HTMLInputElement>;
  folderRef: RefObject<HTMLInputElement>;
  filesLabel: string;
  folderLabel: string;
  onPick: (batch: UploadBatch) => void;
}) {
  return (
    <>
      <input
        ref={filesRef}
        type="file"
        multiple
        hidden
        aria-label={filesLabel}
        onChange={(event) => {
          onPick(itemsFromFileList(event.currentTarget.files ?? []));
          event.currentTarget.value = "";
        }}
      />
      <input
        ref={folderRef}
        type="file"
        hidden
        aria-label={folderLabel}
        {...{ webkitdirectory: "", directory: "" }}
        onChange={(event) => {
          onPick(itemsFromFileList(event.currentTarget.files ?? []));
          event.currentTarget.value = "";
        }}
      />
    </>
  );
}
