import { type ReactNode, type SVGProps } from "react";

export type IconProps = Omit<SVGProps<SVGSVGElement>, "children"> & {
  /** Width and height in px (default 16). */
  size?: number;
  /** Gives the icon an accessible name (role img); without it the icon is decorative and hidden. */
  title?: string;
};

/** Builds an outline icon on a 24 × 24 grid that takes the current text colour. */
function icon(displayName: string, shapes: ReactNode) {
  function Icon({ size = 16, title, ...props }: IconProps) {
    const named = title ? { role: "img", "aria-label": title } : { "aria-hidden": true as const };
    return (
      <svg
        xmlns="http://www.w3.org/2000/svg"
        width={size}
        height={size}
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth={2}
        strokeLinecap="round"
        strokeLinejoin="round"
        focusable="false"
        {...named}
        {...props}
      >
        {title && <title>{title}</title>}
        {shapes}
      </svg>
    );
  }
  Icon.displayName = displayName;
  return Icon;
}

export const FileIcon = icon("FileIcon", (
  <>
    <path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z" />
    <path d="M14 3v5h5" />
  </>
));

export const FolderIcon = icon("FolderIcon", <path d="M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z" />);

/** Several files (a multi-file share). */
export const FilesIcon = icon("FilesIcon", (
  <>
    <path d="M15 2H9a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h9a2 2 0 0 0 2-2V7z" />
    <path d="M15 2v5h5" />
    <path d="M4 7v13a2 2 0 0 0 2 2h9" />
  </>
));

/** A virtual folder (a mapped or group directory): a folder with a link mark. */
export const VirtualFolderIcon = icon("VirtualFolderIcon", (
  <>
    <path d="M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z" strokeDasharray="3 2" />
    <path d="M10 14h4M12 12v4" />
  </>
));

export const UploadIcon = icon("UploadIcon", (
  <>
    <path d="M12 15V4M7 9l5-5 5 5" />
    <path d="M4 15v3a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-3" />
  </>
));

export const DownloadIcon = icon("DownloadIcon", (
  <>
    <path d="M12 4v11M7 10l5 5 5-5" />
    <path d="M4 15v3a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-3" />
  </>
));

export const BellIcon = icon("BellIcon", (
  <>
    <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
    <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
  </>
));

export const UserIcon = icon("UserIcon", (
  <>
    <circle cx="12" cy="8" r="4" />
    <path d="M4 21a8 8 0 0 1 16 0" />
  </>
));

export const ChevronDownIcon = icon("ChevronDownIcon", <path d="m6 9 6 6 6-6" />);
export const ChevronLeftIcon = icon("ChevronLeftIcon", <path d="m15 6-6 6 6 6" />);
export const ChevronRightIcon = icon("ChevronRightIcon", <path d="m9 6 6 6-6 6" />);
export const CloseIcon = icon("CloseIcon", <path d="M18 6 6 18M6 6l12 12" />);

export const SearchIcon = icon("SearchIcon", (
  <>
    <circle cx="11" cy="11" r="7" />
    <path d="m20 20-3.5-3.5" />
  </>
));

export const CheckIcon = icon("CheckIcon", <path d="M20 6 9 17l-5-5" />);

/** "More actions" (horizontal ellipsis). */
export const MoreIcon = icon("MoreIcon", (
  <>
    <circle cx="5" cy="12" r="1" />
    <circle cx="12" cy="12" r="1" />
    <circle cx="19" cy="12" r="1" />
  </>
));

/** Column sorted ascending: the upper arrow is solid. */
export const SortAscIcon = icon("SortAscIcon", (
  <>
    <path d="m7 10 5-5 5 5z" fill="currentColor" />
    <path d="m7 14 5 5 5-5z" opacity="0.3" />
  </>
));

/** Column sorted descending: the lower arrow is solid. */
export const SortDescIcon = icon("SortDescIcon", (
  <>
    <path d="m7 10 5-5 5 5z" opacity="0.3" />
    <path d="m7 14 5 5 5-5z" fill="currentColor" />
  </>
));

/** Column not sorted: both arrows faint. */
export const SortNoneIcon = icon("SortNoneIcon", (
  <>
    <path d="m7 10 5-5 5 5z" opacity="0.3" />
    <path d="m7 14 5 5 5-5z" opacity="0.3" />
  </>
));

/** The transfer list (arrows up and down). */
export const TransferIcon = icon("TransferIcon", (
  <>
    <path d="M8 20V4M4 8l4-4 4 4" />
    <path d="M16 4v16M12 16l4 4 4-4" />
  </>
));

/** Every icon by name, for pickers and for the kit's own tests. */
export const icons = {
  file: FileIcon,
  folder: FolderIcon,
  files: FilesIcon,
  "virtual-folder": VirtualFolderIcon,
  upload: UploadIcon,
  download: DownloadIcon,
  bell: BellIcon,
  user: UserIcon,
  "chevron-down": ChevronDownIcon,
  "chevron-left": ChevronLeftIcon,
  "chevron-right": ChevronRightIcon,
  close: CloseIcon,
  search: SearchIcon,
  check: CheckIcon,
  more: MoreIcon,
  "sort-asc": SortAscIcon,
  "sort-desc": SortDescIcon,
  "sort-none": SortNoneIcon,
  transfer: TransferIcon,
} as const;

export type IconName = keyof typeof icons;
