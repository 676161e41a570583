import { errorByCode, ErrorCode } from "../../../contract/errors";

const freeVersion = errorByCode(ErrorCode.FreeVersionClientLimit)!;

/** The desktop transfer client: the client-start / size-overflow dialog and the client's own errors. */
export const clientEn = {
  "client.dialog.start.title": "Start the transfer client",
  "client.dialog.start.text": "Choose \"Open the client\" and allow your browser to open it. If nothing happens, it is probably not installed: download the latest version, install it and start it. This window closes by itself once the client connects.",
  "client.dialog.start.open": "Open the client",
  "client.dialog.overflow.title": "File too large for the browser",
  "client.dialog.overflow.text": "The browser transfers files up to {{limit}}. For larger files, download the latest version of the transfer client, install it and start it. This window closes by itself once the client connects.",
  "client.dialog.large.title": "Large upload",
  "client.dialog.large.text": "These files come to {{size}}, more than {{threshold}}. The desktop transfer client is better suited to uploads this large: open it (or download and install it) and upload them there, or continue in the browser.",
  "client.dialog.large.continue": "Continue in the browser",
  "client.dialog.upgrade.title": "Upgrade the transfer client",
  "client.dialog.upgrade.text": "Download the latest version of the transfer client and install it over the one you have.",
  "client.dialog.downloads": "Downloads",
  "app.transfer.error.free-version": freeVersion.en,
} as const;

export const clientZh: Record<keyof typeof clientEn, string> = {
  "client.dialog.start.title": "启动传输客户端",
  "client.dialog.start.text": "请点击“打开客户端”，并允许浏览器打开它。如果没有反应，可能尚未安装：请下载最新版本，安装后启动。客户端连接后此窗口会自动关闭。",
  "client.dialog.start.open": "打开客户端",
  "client.dialog.overflow.title": "文件超出浏览器传输上限",
  "client.dialog.overflow.text": "浏览器最多传输 {{limit}} 的文件。传输更大的文件，请下载最新版本的传输客户端，安装后启动。客户端连接后此窗口会自动关闭。",
  "client.dialog.large.title": "大批量上传",
  "client.dialog.large.text": "这些文件共 {{size}}，超过 {{threshold}}。如此大的上传更适合使用桌面传输客户端：请打开客户端（或下载安装）后在其中上传，也可以继续在浏览器中上传。",
  "client.dialog.large.continue": "继续在浏览器中上传",
  "client.dialog.upgrade.title": "升级传输客户端",
  "client.dialog.upgrade.text": "请下载最新版本的传输客户端，覆盖安装当前版本。",
  "client.dialog.downloads": "下载",
  "app.transfer.error.free-version": freeVersion.zh,
};
