/**
 * Ferry's single error catalogue, shared by the engine (response envelopes) and the web client
 * (translated messages). Every response carries `{ code, value, result, message, data }`; `code`
 * and `value` come from here, and the web looks messages up under `error.<code>`.
 *
 * Codes below 4100 are the original product's codes (spec section 8 of both documents and the
 * extra codes listed in REFERENCE.md); `value` keeps the original label, spelling included
 * (e.g. "Unknow exception", "Permission diend"), so existing clients and scripts keep matching,
 * while `en` and `zh` are the corrected, user-facing texts.
 *
 * Codes from 4101 up are Ferry's own, for messages the spec names without a code. The original
 * product uses 4002–4041 with meanings only partly known, so that range is left alone.
 *
 * HTTP status: 200 only for Success, 400 for client errors (including auth errors such as 1005,
 * 1009 and 1050), 500 for server faults.
 *
 * Messages may contain i18next-style variables (`{{name}}`); a byte count is written
 * `{{name, size}}` and shown with contract/sizes.ts (the web registers the same format with i18next);
 * see formatErrorMessage.
 */

import { formatValue } from "./sizes";

export interface ErrorDef {
  /** The numeric code sent in the response envelope. */
  code: number;
  /** PascalCase identifier, e.g. "WrongPassword". */
  name: ErrorName;
  /** HTTP status: 200 (Success only), 400 (client error) or 500 (server fault). */
  status: number;
  /** Short English label, as the original product's `value` field. */
  value: string;
  /** Full English message; may contain {{variables}}. */
  en: string;
  /** Full Simplified Chinese message, with the same variables. */
  zh: string;
  /**
   * Other wordings of the same code, picked by the variable `context` (the engine puts it in the
   * error's data too): `formatErrorMessage` here, and i18next's context on the web, which looks up
   * `error.<code>_<context>` before `error.<code>` (app/i18n/resources.ts).
   */
  contexts?: Readonly<Record<string, { readonly en: string; readonly zh: string }>>;
}

const catalogue = {
  Success: { code: 200, status: 200, value: "OK", en: "Success", zh: "成功" },

  // Generic request errors
  ParameterError: { code: 400, status: 400, value: "Parameter error", en: "Parameter error", zh: "参数错误" },
  BadRequired: { code: 401, status: 400, value: "Bad required", en: "A required parameter is missing", zh: "缺少必填参数" },
  ParameterTypeError: { code: 402, status: 400, value: "Parameter Type Error", en: "Parameter type error", zh: "参数类型错误" },
  AdminServerAbnormal: { code: 501, status: 500, value: "Admin server abnormal", en: "The admin server is abnormal", zh: "管理服务异常" },
  UnknownException: { code: 1000, status: 500, value: "Unknow exception", en: "Unknown exception", zh: "未知异常" },
  DatabaseException: { code: 1001, status: 500, value: "Database exception", en: "Database exception", zh: "数据库异常" },

  // Accounts and sign-in
  AccountInvalid: { code: 1002, status: 400, value: "Account invalid", en: "The account is invalid", zh: "账号无效" },
  AccountRequired: { code: 1003, status: 400, value: "Account is required", en: "Account is required", zh: "请输入账号" },
  AccountExists: { code: 1004, status: 400, value: "Account already existed", en: "The account already exists", zh: "账号已存在" },
  // lockPeriod is stored in seconds; callers pass it converted to minutes.
  WrongPassword: {
    code: 1005,
    status: 400,
    value: "Wrong password",
    // Worded without counted nouns ("1 times"): the catalogue has no plural forms.
    en: "Wrong password: failed attempts {{wrongTimes}} of {{maxLockTimes}} within {{lockPeriod}} min; at the limit the account is locked",
    zh: "您已输错密码 {{wrongTimes}} 次，若在 {{lockPeriod}} 分钟内输错 {{maxLockTimes}} 次，账号将被锁定",
  },
  PasswordRequired: { code: 1006, status: 400, value: "Password is required", en: "Password is required", zh: "请输入密码" },
  PermissionDenied: { code: 1008, status: 400, value: "Permission diend", en: "Permission denied", zh: "权限不足" },
  InvalidToken: { code: 1009, status: 400, value: "Invalid token", en: "Your login has expired; please log in again", zh: "登录已失效，请重新登录" },
  EmailExists: { code: 1014, status: 400, value: "Email already existed", en: "The email address is already in use", zh: "该邮箱已被使用" },
  AccountNotAllowed: { code: 1018, status: 400, value: "Account not allowed", en: "This account is not allowed to log in", zh: "该账号不允许登录" },

  // Formats
  AccountFormat: {
    code: 1021,
    status: 400,
    value: "Incorrect account format",
    en: "Account format can only consist of letters, numbers and underline. The length must be between 3~30 characters.",
    zh: "账号只能由字母、数字和下划线组成，长度须为 3~30 个字符。",
  },
  EmailFormat: { code: 1022, status: 400, value: "Incorrect email format", en: "Incorrect email format", zh: "邮箱格式不正确" },
  PasswordFormat: {
    code: 1023,
    status: 400,
    value: "Incorrect password format",
    en: "The password must be 8~20 characters long and contain at least three of the following: uppercase letters, lowercase letters, digits and special characters. It must not contain spaces, Chinese characters or the account name.",
    zh: "密码长度须为 8~20 个字符，且至少包含大写字母、小写字母、数字和特殊字符中的三种；不能包含空格、中文字符或账号名。",
  },
  // The person (display) name; the file/folder name rule is NameFormat below.
  PersonNameFormat: { code: 1024, status: 400, value: "Incorrect name format", en: "Incorrect name format: the name can be at most 32 characters", zh: "姓名格式不正确：最多 32 个字符" },
  PhoneFormat: { code: 1025, status: 400, value: "Incorrect phone format", en: "Incorrect phone number format", zh: "手机号格式不正确" },
  HostFormat: { code: 1026, status: 400, value: "Incorrect host format", en: "Incorrect host format", zh: "主机地址格式不正确" },
  InvalidPort: { code: 1027, status: 400, value: "Invalid port", en: "The port is invalid", zh: "端口无效" },
  InvalidSslPort: { code: 1028, status: 400, value: "Invalid SSL port", en: "The SSL port is invalid", zh: "SSL 端口无效" },
  InvalidBandwidth: { code: 1029, status: 400, value: "Invalid bandwidth", en: "The bandwidth is invalid", zh: "带宽设置无效" },
  InvalidOutboundBandwidth: { code: 1030, status: 400, value: "Invalid outbound bandwidth", en: "The outbound bandwidth is invalid", zh: "出站带宽设置无效" },

  // Access, files and paths
  SiteAccessDenied: { code: 1031, status: 400, value: "Site Access Denied", en: "Access to this site is denied", zh: "禁止访问本站点" },
  OnlyOneAdministrator: { code: 1032, status: 400, value: "Only One Administrator", en: "There can be only one administrator", zh: "只能有一个管理员" },
  DirectoryNotExist: { code: 1033, status: 400, value: "Directory not exist", en: "The directory does not exist", zh: "目录不存在" },
  FileNotExist: { code: 1034, status: 400, value: "File not exist", en: "The file does not exist", zh: "文件不存在" },
  CommandFailed: { code: 1035, status: 500, value: "Command execution failed", en: "Command execution failed", zh: "命令执行失败" },
  InvalidPackageSize: { code: 1036, status: 400, value: "Package size must be 600~1442", en: "The package size must be between 600 and 1442", zh: "数据包大小须在 600~1442 之间" },
  LinkExpired: { code: 1037, status: 400, value: "Link expired", en: "The link has expired", zh: "链接已过期" },
  LinkBroken: { code: 1041, status: 400, value: "Link broken", en: "The link is broken", zh: "链接已失效" },
  NoPermission: { code: 1042, status: 400, value: "No permission", en: "No permission; please contact the administrator", zh: "没有权限，请联系管理员" },
  PathNotFound: { code: 1043, status: 400, value: "Path not found", en: "The path does not exist", zh: "路径不存在" },
  NoReadPermission: { code: 1044, status: 400, value: "No read permission", en: "No read permission", zh: "没有读取权限" },
  NoWritePermission: { code: 1045, status: 400, value: "No write permission", en: "No write permission", zh: "没有写入权限" },
  IllegalRequest: { code: 1046, status: 400, value: "Illegal request", en: "Illegal request", zh: "非法请求" },
  AccountLocked: { code: 1050, status: 400, value: "Account was locked", en: "The account has been locked", zh: "账号已被锁定" },
  LinkDisabled: { code: 1055, status: 400, value: "Link disabled", en: "The link has been disabled", zh: "链接已被禁用" },
  LdapConnectFailed: { code: 1056, status: 500, value: "LDAP connect failed", en: "Cannot connect to the LDAP server", zh: "无法连接 LDAP 服务器" },
  LdapAuthFailed: { code: 1057, status: 400, value: "LDAP account or password error", en: "Wrong LDAP account or password", zh: "LDAP 账号或密码错误" },
  UserGroupNotEmpty: { code: 1059, status: 400, value: "User group not empty", en: "The user group is not empty", zh: "用户组不为空" },
  GroupNameDuplicate: { code: 1060, status: 400, value: "Group name duplicate", en: "The group name already exists", zh: "用户组名称已存在" },
  InvalidPath: { code: 1066, status: 400, value: "Invalid path", en: "The path is invalid", zh: "路径无效" },
  EmailAuthError: { code: 1068, status: 400, value: "Email auth error", en: "Email authentication failed; check the account and password", zh: "邮箱认证失败，请检查账号和密码" },
  NeedResetPassword: { code: 1074, status: 400, value: "Need update default password", en: "Please change the default password first", zh: "请先修改默认密码" },
  // Informational in the original (the change was saved), but never sent with status 200.
  NeedRestart: { code: 1077, status: 400, value: "Need to restart", en: "Configured successfully; restart the server for the change to take effect", zh: "配置成功，请重启服务器使配置生效" },
  VersionNotSupported: { code: 1080, status: 400, value: "Version not supported", en: "This version is not supported", zh: "不支持该版本" },
  DiskFull: { code: 1086, status: 500, value: "Disk full", en: "The disk is full", zh: "磁盘已满" },
  FlowNotEnough: { code: 1087, status: 400, value: "Flow not enough", en: "Not enough traffic left", zh: "剩余流量不足" },
  IpNotInWhitelist: { code: 1091, status: 400, value: "IP not in whitelist", en: "Your IP address is not in the whitelist", zh: "您的 IP 地址不在白名单中" },
  LicenseExpired: { code: 1092, status: 400, value: "License expired", en: "The licence has expired", zh: "许可证已过期" },
  LicenseInvalid: { code: 1093, status: 400, value: "License invalid", en: "The licence is invalid", zh: "许可证无效" },
  LinkBound: { code: 1096, status: 400, value: "Link has been bound", en: "This link has been bound to another device", zh: "该链接已绑定到其他设备" },
  InvalidVirtualPathFormat: { code: 1097, status: 400, value: "Virtual path format invalid", en: "The virtual path format is invalid", zh: "虚拟路径格式无效" },

  // 4000 range of the original
  AccountNotExist: { code: 4001, status: 400, value: "Account does not exist", en: "The account does not exist", zh: "账号不存在" },
  StorageIdNotExist: { code: 4004, status: 400, value: "Storage id does not exist", en: "The storage ID does not exist", zh: "存储 ID 不存在" },
  DefaultStorageUndeletable: { code: 4005, status: 400, value: "Default storage cannot be deleted", en: "The default storage cannot be deleted", zh: "默认存储不能删除" },
  DefaultStorageUnmodifiable: { code: 4006, status: 400, value: "Default storage cannot be modified", en: "The default storage cannot be modified", zh: "默认存储不能修改" },
  StorageNameExists: { code: 4009, status: 400, value: "Storage name exists", en: "The storage name already exists", zh: "存储名称已存在" },
  IpWhitelistFormat: { code: 4019, status: 400, value: "IP whitelist format error", en: "Incorrect IP whitelist format", zh: "IP 白名单格式错误" },
  ShareUrlNotExist: { code: 4025, status: 400, value: "Share url not exist", en: "The share link does not exist", zh: "分享链接不存在" },
  CertificateKeyTooShort: { code: 4029, status: 400, value: "Certificate under 2048 bits", en: "The certificate key must be at least 2048 bits", zh: "证书密钥长度不能少于 2048 位" },
  CertificateExpired: { code: 4030, status: 400, value: "Certificate expired", en: "The certificate has expired", zh: "证书已过期" },
  CertificateNotRsa: { code: 4031, status: 400, value: "Only RSA keys", en: "Only RSA keys are supported", zh: "仅支持 RSA 密钥" },
  CertificateKeyMismatch: { code: 4032, status: 400, value: "Certificate and key mismatch", en: "The certificate and the private key do not match", zh: "证书与私钥不匹配" },
  DiskInsufficient: { code: 4068, status: 500, value: "Disk insufficient", en: "Insufficient disk space", zh: "磁盘空间不足" },

  // Ferry-defined codes (the spec names these messages without codes)
  // General
  ServerError: { code: 4101, status: 500, value: "Server error", en: "Server error", zh: "服务器错误" },
  InvalidParameter: { code: 4102, status: 400, value: "Invalid parameter", en: "Invalid parameter", zh: "参数无效" },
  RouteNotFound: { code: 4103, status: 400, value: "Route not found", en: "The requested API does not exist", zh: "请求的接口不存在" },
  InvalidOperation: { code: 4104, status: 400, value: "Invalid operation", en: "Invalid operation", zh: "无效的操作" },
  IllegalOperation: { code: 4105, status: 400, value: "Illegal operation", en: "Illegal operation", zh: "非法操作" },
  AccessDenied: { code: 4106, status: 400, value: "Access denied", en: "Access denied", zh: "拒绝访问" },
  NotAllowedInSafeMode: { code: 4107, status: 400, value: "Not allowed in safe mode", en: "This operation is not allowed in safe mode", zh: "安全模式下不允许此操作" },
  UnreasonableQuery: { code: 4108, status: 400, value: "Unreasonable query conditions", en: "The query conditions are unreasonable", zh: "查询条件不合理" },
  FeatureNotSupported: { code: 4109, status: 400, value: "Feature not supported", en: "This feature is not supported", zh: "不支持该功能" },
  FreeVersionClientLimit: { code: 4110, status: 400, value: "Free version limit", en: "The free edition allows at most 3 desktop clients online at once", zh: "免费版最多同时在线 3 个桌面客户端" },
  InvalidTimeRange: { code: 4111, status: 400, value: "Invalid time range", en: "The end time must be later than the start time", zh: "结束时间必须晚于开始时间" },

  // Authentication and accounts
  AuthenticationFailed: { code: 4112, status: 400, value: "Authentication failed", en: "Authentication failed", zh: "认证失败" },
  WrongAccountOrPassword: { code: 4113, status: 400, value: "Auth failure", en: "Authentication failed: wrong account or password", zh: "认证失败：账号或密码错误" },
  AuthServiceError: { code: 4114, status: 500, value: "Auth service error", en: "Authentication service error", zh: "认证服务异常" },
  NotLoggedIn: { code: 4115, status: 400, value: "Not logged in", en: "Not logged in, or the login has timed out; please log in again", zh: "未登录或登录已超时，请重新登录" },
  IpLocked: { code: 4116, status: 400, value: "IP locked", en: "This IP address has been locked", zh: "该 IP 地址已被锁定" },
  AccountDeleted: { code: 4117, status: 400, value: "Account deleted", en: "The account has been deleted", zh: "账号已被删除" },
  UserNotFound: { code: 4118, status: 400, value: "User not found", en: "User ID not found", zh: "用户 ID 不存在" },
  GroupNotFound: { code: 4119, status: 400, value: "Group not found", en: "Group ID not found", zh: "用户组 ID 不存在" },
  MemberExists: { code: 4120, status: 400, value: "Associated user exists", en: "The associated user already exists", zh: "关联用户已存在" },
  MemberMissing: { code: 4121, status: 400, value: "Associated user missing", en: "The associated user is missing", zh: "关联用户不存在" },
  GroupSpaceNameExists: { code: 4122, status: 400, value: "Group space name exists", en: "The group space name already exists", zh: "群组空间名称已存在" },
  SystemUserAccessDenied: { code: 4123, status: 400, value: "System user access denied", en: "Access denied for the system user", zh: "系统用户禁止访问" },
  SystemPasswordIncorrect: { code: 4124, status: 400, value: "System login password incorrect", en: "The system login password is incorrect", zh: "系统登录密码错误" },

  // Passwords
  WeakPassword: { code: 4125, status: 400, value: "Weak password", en: "This password is not allowed to be set", zh: "不允许设置此密码" },
  PasswordSameAsOld: { code: 4126, status: 400, value: "Password same as old", en: "The new password must be different from the old one", zh: "新密码不能与旧密码相同" },
  PasswordChangeNotAllowed: { code: 4127, status: 400, value: "Password change not allowed", en: "Changing the password is not allowed by the current settings", zh: "当前设置不允许修改密码" },
  PasswordMismatch: { code: 4128, status: 400, value: "Password mismatch", en: "New passwords are different", zh: "两次输入的新密码不一致" },
  PasswordUnavailable: { code: 4129, status: 400, value: "Password unavailable", en: "This password is unavailable", zh: "该密码不可用" },
  InvalidLockTime: { code: 4130, status: 400, value: "Invalid lock time", en: "The lock time is invalid", zh: "锁定时间无效" },

  // E-mail
  InvalidEmailAccount: { code: 4131, status: 400, value: "Invalid email account", en: "The email account is invalid", zh: "邮箱账号无效" },
  InvalidEmailPassword: { code: 4132, status: 400, value: "Invalid email password", en: "The email password is invalid", zh: "邮箱密码无效" },
  InvalidSmtpHost: { code: 4133, status: 400, value: "Invalid SMTP host", en: "The SMTP host is invalid", zh: "SMTP 服务器地址无效" },
  InvalidSmtpPort: { code: 4134, status: 400, value: "Invalid SMTP port", en: "The SMTP port is invalid", zh: "SMTP 端口无效" },
  EmailNotConfigured: { code: 4135, status: 400, value: "Email not configured", en: "No email sender is configured; please set one up first", zh: "尚未配置发件邮箱，请先完成设置" },

  // System, database and network
  DatabaseNotExist: { code: 4136, status: 400, value: "Database not exist", en: "The database {{database}} does not exist on that server; create it first, then test again", zh: "该服务器上不存在数据库 {{database}}，请先创建后再测试" },
  MysqlSwitchError: { code: 4137, status: 500, value: "MySQL switch error", en: "The copy into the new database failed; Ferry stays on its current database, unchanged: {{reason}}", zh: "复制到新数据库失败，Ferry 继续使用当前数据库，数据未改动：{{reason}}" },
  ConnectFailed: { code: 4138, status: 500, value: "Connect failed", en: "Connection failed", zh: "连接失败" },
  ConnectServerFailed: { code: 4139, status: 500, value: "Connect server failed", en: "Failed to connect to the server", zh: "连接服务器失败" },
  NetcardNotFound: { code: 4140, status: 500, value: "Netcard not found", en: "Network card not found", zh: "未找到网卡" },
  NotUnixSystem: { code: 4141, status: 400, value: "Not a Unix system", en: "This is not a Unix system", zh: "当前系统不是 Unix 系统" },
  ClientCertMissing: { code: 4142, status: 400, value: "Client cert file missing", en: "The client certificate file is missing", zh: "缺少客户端证书文件" },
  InvalidSliceSize: { code: 4143, status: 400, value: "Slice size invalid", en: "The slice size is invalid", zh: "分片大小无效" },

  // Events (notifications)
  EventTestFailed: { code: 4144, status: 500, value: "Test event failed", en: "The event test failed", zh: "事件测试失败" },
  InvalidEventOperation: { code: 4145, status: 400, value: "Invalid event operation", en: "Invalid event operation", zh: "无效的事件操作" },
  EventIdMissing: { code: 4146, status: 400, value: "Event id missing", en: "The event ID is missing", zh: "缺少事件 ID" },
  EventNameExists: { code: 4147, status: 400, value: "Event name exists", en: "The event name already exists", zh: "事件名称已存在" },

  // Storage
  StorageNotFound: { code: 4148, status: 400, value: "Storage not found", en: "The storage does not exist", zh: "存储不存在" },
  StorageTypeNotFound: { code: 4149, status: 400, value: "Storage type not found", en: "The storage type does not exist", zh: "存储类型不存在" },
  StorageNameInvalid: { code: 4150, status: 400, value: "Storage name invalid", en: "The storage name is invalid", zh: "存储名称无效" },
  StorageConfigFailed: { code: 4151, status: 500, value: "Storage config failed", en: "Failed to configure the storage", zh: "存储配置失败" },
  StorageConnectionFailed: { code: 4152, status: 500, value: "Storage connection failed", en: "Failed to connect to the storage", zh: "存储连接失败" },
  ReconfigureCloudStorage: { code: 4153, status: 400, value: "Reconfigure cloud storage", en: "Please reconfigure the cloud storage", zh: "请重新配置云存储" },
  StoragePathLost: { code: 4154, status: 500, value: "Storage path lost", en: "The storage path has been lost", zh: "存储路径丢失" },
  QuotaExceeded: { code: 4155, status: 400, value: "Quota exceeded", en: "The storage quota has been exceeded", zh: "已超出存储配额" },

  // Paths and file operations
  PathFormatError: { code: 4156, status: 400, value: "Path format error", en: "Incorrect path format", zh: "路径格式错误" },
  InvalidVirtualDirectory: { code: 4157, status: 400, value: "Invalid virtual directory path", en: "The virtual directory path is invalid", zh: "虚拟目录路径无效" },
  PathExists: { code: 4158, status: 400, value: "Path exists", en: "The path already exists", zh: "路径已存在" },
  PathIsFile: { code: 4159, status: 400, value: "Path is file", en: "The path is a file", zh: "该路径是文件" },
  PathIsNotFile: { code: 4160, status: 400, value: "Path is not file", en: "The path is not a file", zh: "该路径不是文件" },
  NameFormat: {
    code: 4161,
    status: 400,
    value: "Name format error",
    en: "The name can be at most 255 characters and must not contain any of \\ / : \" * ? < > |",
    zh: "名称最多 255 个字符，且不能包含 \\ / : \" * ? < > | 中的任何字符",
  },
  InvalidFileName: { code: 4162, status: 400, value: "Invalid file name", en: "The file name is invalid", zh: "文件名无效" },
  TargetExists: { code: 4163, status: 400, value: "Target exists", en: "The target already exists", zh: "目标已存在" },
  RenameExists: { code: 4164, status: 400, value: "Rename exists", en: "An item with the new name already exists", zh: "已存在同名项目" },
  FolderExists: { code: 4165, status: 400, value: "Folder exists", en: "The folder already exists", zh: "文件夹已存在" },
  CannotCreateFolder: { code: 4166, status: 500, value: "Cannot create folder", en: "Cannot create the folder", zh: "无法创建文件夹" },
  CannotDelete: { code: 4167, status: 500, value: "Cannot delete", en: "Cannot delete", zh: "无法删除" },
  CannotOpenLocalFile: { code: 4168, status: 500, value: "Cannot open local file", en: "Cannot open the local file", zh: "无法打开本地文件" },
  CannotOpenRemoteFile: { code: 4169, status: 500, value: "Cannot open remote file", en: "Cannot open the remote file", zh: "无法打开远程文件" },
  CannotReadFile: { code: 4170, status: 500, value: "Cannot read file", en: "Cannot read the file", zh: "无法读取文件" },
  CannotWriteFile: { code: 4171, status: 500, value: "Cannot write file", en: "Cannot write the file", zh: "无法写入文件" },
  FileBusy: { code: 4172, status: 400, value: "File busy", en: "The file is in use", zh: "文件正在使用中" },
  FileSystemError: { code: 4173, status: 500, value: "File system error", en: "File system error", zh: "文件系统错误" },
  FileServerException: { code: 4174, status: 500, value: "File server exception", en: "File server exception", zh: "文件服务器异常" },
  UnsupportedOperation: { code: 4175, status: 400, value: "Unsupported operation", en: "This operation is not supported", zh: "不支持此操作" },

  // Transfers and clients
  UploadRestricted: { code: 4176, status: 400, value: "Upload restricted", en: "Uploading is restricted", zh: "上传受限" },
  DownloadRestricted: { code: 4177, status: 400, value: "Download restricted", en: "Downloading is restricted", zh: "下载受限" },
  HashCheckError: { code: 4178, status: 500, value: "Hash check error", en: "File hash check failed", zh: "文件哈希校验失败" },
  InvalidData: { code: 4179, status: 400, value: "Invalid data", en: "Invalid data", zh: "数据无效" },
  InternalError: { code: 4180, status: 500, value: "Internal error", en: "Internal error", zh: "内部错误" },
  ProxyTimeout: { code: 4181, status: 500, value: "Proxy timeout", en: "The proxy timed out", zh: "代理超时" },
  ManagerError: { code: 4182, status: 500, value: "Manager error", en: "Transfer manager error", zh: "传输管理器错误" },
  ClientClosed: { code: 4183, status: 400, value: "Client closed", en: "The client has been closed", zh: "客户端已关闭" },
  ClientTimeout: { code: 4184, status: 400, value: "Client timeout", en: "The client timed out", zh: "客户端超时" },
  ClientUpgradeFailed: { code: 4185, status: 500, value: "Client upgrade failed", en: "Failed to upgrade the client", zh: "客户端升级失败" },
  StoppedByClient: { code: 4186, status: 400, value: "Stopped by client", en: "The transfer was stopped by the client", zh: "传输已被客户端停止" },
  StoppedByServer: { code: 4187, status: 500, value: "Stopped by server", en: "The transfer was stopped by the server", zh: "传输已被服务器停止" },
  LocalStop: { code: 4188, status: 400, value: "Local stop", en: "The transfer was stopped locally", zh: "传输已在本地停止" },
  Disconnected: { code: 4189, status: 500, value: "Disconnected", en: "Disconnected", zh: "连接已断开" },
  ServerDisconnected: { code: 4190, status: 500, value: "Server disconnected", en: "The server has disconnected", zh: "与服务器的连接已断开" },
  WaitingForPeer: { code: 4191, status: 400, value: "Waiting for peer", en: "Waiting for the peer to connect", zh: "正在等待对方连接" },
  CloseError: { code: 4192, status: 500, value: "Close error", en: "Error while closing", zh: "关闭时出错" },
  IdExists: { code: 4193, status: 400, value: "Id already exists", en: "The ID already exists", zh: "ID 已存在" },
  DeviceNotFound: { code: 4194, status: 400, value: "Device not found", en: "The receiving device does not exist", zh: "接收设备不存在" },
  DeviceAlreadyConnected: { code: 4195, status: 400, value: "Device already connected", en: "The device is already connected", zh: "该设备已连接" },

  // Shares and preview
  ShareFileLimit: { code: 4196, status: 400, value: "Share file limit", en: "A share can hold at most {{max}} files", zh: "一次分享最多包含 {{max}} 个文件" },
  ShareAliasNotAllowed: { code: 4197, status: 400, value: "Alias not allowed", en: "Aliases are only available for fewer than 10 files and not for folders", zh: "仅在少于 10 个文件且不含文件夹时可设置别名" },
  ShareAliasFormat: {
    code: 4198,
    status: 400,
    value: "Alias format error",
    en: "The alias can be at most 255 characters and must not contain / \\ : * < > | \" ? or line breaks",
    zh: "别名最多 255 个字符，且不能包含 / \\ : * < > | \" ? 或换行符",
  },
  ShareAliasConflict: { code: 4199, status: 400, value: "Alias conflict", en: "The alias must not be the same as the name of another shared file", zh: "别名不能与其他分享文件的名称相同" },
  ShareAliasDuplicate: { code: 4200, status: 400, value: "Alias duplicate", en: "Aliases must be unique", zh: "别名不能重复" },
  PreviewUnsupported: { code: 4201, status: 400, value: "Preview unsupported", en: "Preview is not supported for this file", zh: "该文件不支持预览" },
  PreviewFailed: { code: 4202, status: 500, value: "Preview failed", en: "Preview failed", zh: "预览失败" },
  NoticeNotFound: { code: 4203, status: 400, value: "Notification not found", en: "The notification does not exist", zh: "通知不存在" },

  // Desktop client installers
  InstallerNotAvailable: {
    code: 4204,
    status: 400,
    value: "Installer not available",
    en: "No installer for this platform is available yet; please ask your administrator",
    zh: "暂无该平台的客户端安装包，请联系管理员",
  },

  // Uploads (tus, docs/file-server.md)
  FileTooLarge: { code: 4205, status: 400, value: "File too large", en: "The file is larger than the server allows ({{limit, size}})", zh: "文件超过服务器允许的大小（{{limit, size}}）" },
  UploadNotFound: { code: 4206, status: 400, value: "Upload not found", en: "The upload does not exist or has expired", zh: "上传不存在或已过期" },
  UploadIncomplete: {
    code: 4207,
    status: 400,
    value: "Upload incomplete",
    en: "The upload is not complete yet ({{offset, size}} of {{size, size}} received)",
    zh: "上传尚未完成（已收到 {{offset, size}} / {{size, size}}）",
  },
  // Transfer protocol settings (docs/file-server.md, "Part size and parallel uploads")
  UploadPartTooLarge: {
    code: 4209,
    status: 413,
    value: "Upload part too large",
    en: "One upload request may carry at most {{limit, size}} (the server's upload part size); send the file in smaller parts, each with its Content-Length",
    zh: "每个上传请求最多 {{limit, size}}（服务器的上传分块大小）；请分块发送，并带上 Content-Length",
  },
  UploadsBusy: {
    code: 4210,
    status: 429,
    value: "Too many uploads at once",
    en: "At most {{max}} uploads of one sign-in may send data at once; this upload waits and tries again",
    zh: "同一登录最多同时发送 {{max}} 个上传；此上传将等待后重试",
  },
  UploadMemoryFull: {
    code: 4211,
    status: 503,
    value: "Upload memory full",
    en: "The server holds as much upload data in memory as it may; this upload waits and tries again",
    zh: "服务器暂存的上传数据已达上限；此上传将等待后重试",
  },
  UploadPartOverMemory: {
    code: 4212,
    status: 413,
    value: "Upload part over memory",
    en: "The storage's part size ({{partSize, size}}) is larger than the server's memory for uploads ({{limit, size}}); an administrator must lower the storage's slice size or raise FERRY_UPLOAD_BUFFER_BYTES",
    zh: "该存储的分片大小（{{partSize, size}}）超过服务器的上传内存（{{limit, size}}）；请管理员调小存储的分片大小或调大 FERRY_UPLOAD_BUFFER_BYTES",
  },

  // Downloads (docs/file-server.md, "Downloads and previews")
  DownloadSelectionTooLarge: {
    code: 4208,
    status: 400,
    value: "Download selection too large",
    en: "Too many items for one download; select their folder instead, or fewer items",
    zh: "一次下载的项目过多，请改为选择其所在文件夹，或减少所选项目",
  },

  // Share links and invitations (docs/shares.md); 4230 up, so parallel work on other ranges cannot collide
  SharePasswordFormat: { code: 4230, status: 400, value: "Share password format", en: "The share password must be 1 to 6 characters (spaces are removed)", zh: "分享密码须为 1~6 个字符（空格会被去除）" },
  ShareAttemptsLocked: {
    code: 4231,
    status: 400,
    value: "Too many share password attempts",
    en: "Too many wrong passwords for this link; try again in {{minutes}} min",
    zh: "该链接的密码错误次数过多，请 {{minutes}} 分钟后再试",
  },
  ShareExpiryPast: { code: 4232, status: 400, value: "Share expiry in the past", en: "The expiry time must be in the future", zh: "过期时间必须晚于当前时间" },
  ShareNothingSelected: { code: 4233, status: 400, value: "Nothing to share", en: "Select at least one file or folder to share", zh: "请至少选择一个要分享的文件或文件夹" },
  ShareInviteFolder: { code: 4234, status: 400, value: "Invitation needs a folder", en: "An upload invitation needs exactly one folder", zh: "上传邀请须指定一个文件夹" },
  ShareBaseUrlInvalid: { code: 4235, status: 400, value: "Share base URL invalid", en: "The share base URL must be an http or https address", zh: "分享链接的基础地址须为 http 或 https 地址" },
  ShareBaseUrlNotAllowed: {
    code: 4236,
    status: 400,
    value: "Share base URL not allowed",
    en: "The share base URL must be one of this server's web addresses",
    zh: "分享链接的基础地址须为本服务器的网页地址",
  },
  ShareNameDuplicate: {
    code: 4237,
    status: 400,
    value: "Shared names alike",
    en: "Two shared items have the same name; give one of them an alias",
    zh: "有两个分享项目同名，请为其中一个设置别名",
  },
  ShareRequestsThrottled: {
    code: 4238,
    status: 429,
    value: "Too many share requests",
    en: "Too many requests for share links from this address; try again in {{minutes}} min",
    zh: "该地址的分享链接请求过多，请 {{minutes}} 分钟后再试",
  },

  // Request size, sign-in and sessions (docs/security.md, sections 1-3); 4280 up
  RequestTooLarge: {
    code: 4280,
    status: 413,
    value: "Request too large",
    en: "The request is too large (at most {{limit, size}})",
    zh: "请求过大（最多 {{limit, size}}）",
  },

  // Thumbnails (docs/file-server.md, "Thumbnails"); 4300 up
  ThumbnailTooLarge: {
    code: 4300,
    status: 400,
    value: "Image too large for a thumbnail",
    en: "The image is too large for a thumbnail (at most {{bytes}} and {{pixels}} pixels)",
    zh: "图片过大，无法生成缩略图（最多 {{bytes}}、{{pixels}} 像素）",
  },

  // Move and copy (docs/file-server.md, "move / copy"); 4320 up
  FolderIntoItself: {
    code: 4320,
    status: 400,
    value: "Folder into itself",
    en: "A folder cannot be moved or copied into itself or into one of its own folders",
    zh: "不能将文件夹移动或复制到其自身或其子文件夹中",
  },

  // Folder walks (docs/security.md, "Folder walks"); 4260 up
  WalkLimit: {
    code: 4260,
    status: 400,
    value: "Folder too large",
    en: "The folder holds too many items or is nested too deeply for this operation (at most {{entries}} items, {{depth}} levels)",
    zh: "该文件夹包含的项目过多或层级过深，无法执行此操作（最多 {{entries}} 项、{{depth}} 层）",
  },

  // Upload rules of a user or group (docs/file-server.md, "Upload rules"): kinds of the spec's "upload restricted"; 4340 up
  FileFormatRefused: {
    code: 4340,
    status: 400,
    value: "File format restricted",
    en: "{{name}} cannot be uploaded: files of this type are not allowed for your account",
    zh: "无法上传 {{name}}：您的账号不允许此类型的文件",
    // The security settings' server-wide limit refuses uploads and downloads alike, for every account.
    contexts: {
      server: {
        en: "{{name}} cannot be transferred: the server does not allow files of this type",
        zh: "无法传输 {{name}}：服务器不允许此类型的文件",
      },
    },
  },
  UploadNewOnly: {
    code: 4341,
    status: 400,
    value: "Upload new files only",
    en: "Only new files may be uploaded here: {{name}} already exists and cannot be replaced",
    zh: "此处只能上传新文件：{{name}} 已存在，不能替换",
  },
  FileFiltered: {
    code: 4342,
    status: 400,
    value: "Skipped by the file filter",
    en: "{{name}} is skipped: the file filter of this space leaves out files of this name or size",
    zh: "已跳过 {{name}}：此空间的文件过滤规则不传输此名称或大小的文件",
  },

  // Settings (docs/admin-api.md, "Settings"): 4380 up
  SpeedPeriodOrder: {
    code: 4380,
    status: 400,
    value: "Speed period end must be after its start",
    en: "Speed period {{number}}: the end time must be after the start time (a period cannot run past midnight: split it in two)",
    zh: "限速时段 {{number}}：结束时间必须晚于开始时间（时段不能跨过午夜，请拆成两段）",
  },
  WatermarkEnterprise: {
    code: 4381,
    status: 400,
    value: "Watermark needs enterprise",
    en: "The watermark is a feature of the enterprise edition: upload an enterprise licence first",
    zh: "水印是企业版功能：请先上传企业版许可证",
  },
  WatermarkPreviewUnsupported: {
    code: 4382,
    status: 400,
    value: "Preview impossible with the watermark",
    en: "The watermark is on: only JPEG, PNG and GIF images up to {{bytes}} and {{pixels}} pixels can be previewed. Download the file to see it",
    zh: "水印已开启：仅能预览不超过 {{bytes}}、{{pixels}} 像素的 JPEG、PNG 和 GIF 图片，请下载后查看",
  },

  // Administrator's notifications and the server's test mail (docs/admin-api.md "Notifications", docs/mail.md); 4440 up
  NoticeWayRequired: { code: 4440, status: 400, value: "Way required", en: "Choose how to send the notification: website, e-mail or both", zh: "请选择通知方式：网站、邮件或两者" },
  NoticeReceiversRequired: { code: 4441, status: 400, value: "Receivers required", en: "Choose the receivers: pick users or send to all users", zh: "请选择接收人：选择用户或发送给所有用户" },
  NoticeMailNotConfigured: {
    code: 4442,
    status: 400,
    value: "Email not configured",
    en: "Sending by e-mail needs the server's mail account: set it up under Email setting first",
    zh: "通过邮件发送需要先配置服务器的发件邮箱：请先在“邮箱设置”中完成设置",
  },
  SmtpRejected: { code: 4443, status: 400, value: "SMTP server rejected", en: "The mail server refused: {{response}}", zh: "邮件服务器拒绝：{{response}}" },
  SmtpUnreachable: { code: 4444, status: 400, value: "SMTP connection failed", en: "Could not talk to the mail server: {{reason}}", zh: "无法与邮件服务器通信：{{reason}}" },
  // Logs (docs/admin-api.md, "Logs"): 4480 up
  PreviewNotLive: { code: 4480, status: 400, value: "Preview not live", en: "This preview has already ended or was stopped; refresh the preview log", zh: "该预览已结束或已被停止，请刷新预览日志" },
  TaskNotLive: { code: 4481, status: 400, value: "Transfer not live", en: "This transfer has already ended or was stopped; refresh the list", zh: "该传输已结束或已被停止，请刷新列表" },
  TransferLogNotFound: { code: 4482, status: 400, value: "Transfer log entry not found", en: "This transfer log entry does not exist (it may have been deleted by the retention)", zh: "该传输日志记录不存在（可能已按保留天数删除）" },

  // Events (docs/events.md); 4600 up
  EventsDirectoryUnset: {
    code: 4600,
    status: 400,
    value: "Events directory not set",
    en: "Events cannot run executables yet: the server has no events directory (FERRY_EVENT_BIN_DIR, set at install)",
    zh: "事件暂不能运行可执行文件：服务器未设置事件目录（安装时设置 FERRY_EVENT_BIN_DIR）",
  },
  EventExecutableRefused: {
    code: 4601,
    status: 400,
    value: "Executable not allowed",
    en: "The executable must be an existing executable file inside the events directory {{dir}}; a link leading out of it is refused",
    zh: "可执行文件必须是事件目录 {{dir}} 中已存在的可执行文件；指向目录之外的链接会被拒绝",
  },
  EventCommandLineInvalid: {
    code: 4602,
    status: 400,
    value: "Invalid command line",
    en: "The command line cannot be split into arguments: close every quote, double literal braces and use only the placeholders {path}, {newPath}, {user}, {size}, {time}, {type} and {group}",
    zh: "命令行无法拆分为参数：请闭合所有引号，字面花括号请写两次，且只使用占位符 {path}、{newPath}、{user}、{size}、{time}、{type} 和 {group}",
  },

  // Authentication ways (docs/authentication.md); 4360 up
  AuthUrlNotAllowed: {
    code: 4360,
    status: 400,
    value: "Authentication URL not allowed",
    en: "The authentication URL must be an http or https address outside this server's own network",
    zh: "认证地址须为本服务器所在网络之外的 http 或 https 地址",
  },

  // TLS certificate and client TLS (docs/file-server.md, "TLS"; docs/admin-api.md); 4520 up
  CertificateMalformed: {
    code: 4520,
    status: 400,
    value: "Certificate not readable",
    en: "The certificate is not a PEM certificate (-----BEGIN CERTIFICATE-----); upload the .crt or .pem file",
    zh: "证书不是 PEM 格式的证书（-----BEGIN CERTIFICATE-----），请上传 .crt 或 .pem 文件",
  },
  PrivateKeyMalformed: {
    code: 4521,
    status: 400,
    value: "Private key not readable",
    en: "The private key is not an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----); remove its passphrase and upload it again",
    zh: "私钥不是未加密的 PEM 私钥（-----BEGIN PRIVATE KEY-----），请去掉口令后重新上传",
  },
  CertificateNotYetValid: {
    code: 4522,
    status: 400,
    value: "Certificate not yet valid",
    en: "The certificate is not valid yet; check its start date and the server's clock",
    zh: "证书尚未生效，请检查证书的生效日期和服务器时间",
  },
  TlsOnlyNeedsCertificate: {
    code: 4523,
    status: 400,
    value: "No valid certificate",
    en: "Non-TLS connections can only be disabled while a valid certificate is in use; upload one first",
    zh: "只有在使用有效证书时才能禁用非 TLS 连接，请先上传证书",
  },
  TlsCertificateNeeded: {
    code: 4524,
    status: 400,
    value: "Certificate in use",
    en: "The certificate cannot be removed while non-TLS connections are disabled; enable them first",
    zh: "禁用非 TLS 连接期间不能移除证书，请先启用非 TLS 连接",
  },

  // Site design and licences (docs/licence.md, docs/admin-api.md "Site design"); 4460 up
  SiteDesignEnterprise: {
    code: 4460,
    status: 400,
    value: "Site design needs enterprise",
    en: "Site customisation is a feature of the enterprise edition: upload an enterprise licence first",
    zh: "站点定制是企业版功能：请先上传企业版许可证",
  },
  ImageTypeRefused: {
    code: 4461,
    status: 400,
    value: "Image type refused",
    en: "This file is not a valid {{types}} image",
    zh: "该文件不是有效的 {{types}} 图片",
  },
  ImageDimensionsTooLarge: {
    code: 4462,
    status: 400,
    value: "Image too large",
    en: "The image is {{width}}×{{height}} pixels; at most {{maxWidth}}×{{maxHeight}} is allowed",
    zh: "图片为 {{width}}×{{height}} 像素，最大允许 {{maxWidth}}×{{maxHeight}}",
  },
  ImageFileTooLarge: {
    code: 4463,
    status: 400,
    value: "Image file too large",
    en: "The image file is larger than {{limit, size}}",
    zh: "图片文件超过 {{limit, size}}",
  },
  UserLimitReached: {
    code: 4464,
    status: 400,
    value: "User limit reached",
    en: "The licence allows at most {{limit}} user accounts: delete an account or upload a licence with more users",
    zh: "许可证最多允许 {{limit}} 个用户账号：请删除账号或上传用户数更多的许可证",
  },

  // The database page (docs/database.md); 4400 up
  DatabaseAuthFailed: {
    code: 4400,
    status: 400,
    value: "Database access denied",
    en: "The database server refused the account or password; check them, and that the account may connect from this machine",
    zh: "数据库服务器拒绝了该账号或密码，请检查账号和密码，以及该账号是否允许从本机连接",
  },
  DatabaseUnreachable: {
    code: 4401,
    status: 400,
    value: "Database connect failed",
    en: "Cannot connect to the database server at {{address}}: check the address, the port and that the server accepts connections from this machine",
    zh: "无法连接数据库服务器 {{address}}，请检查地址和端口，以及服务器是否允许本机连接",
  },
  DatabaseNotEmpty: {
    code: 4402,
    status: 400,
    value: "Database not empty",
    en: "The target database already holds {{tables}} of Ferry's tables; choose an empty database, or confirm replacing them",
    zh: "目标数据库中已有 {{tables}} 张 Ferry 的数据表，请选择空数据库，或确认替换这些表",
  },
  DatabaseCopyRunning: {
    code: 4403,
    status: 400,
    value: "Database copy running",
    en: "A database copy is already running; wait for it to finish",
    zh: "已有数据库复制正在进行，请等待其完成",
  },
  DatabaseSameAsCurrent: {
    code: 4404,
    status: 400,
    value: "Same database",
    en: "The target is the database Ferry runs on now; choose another database",
    zh: "目标就是 Ferry 当前使用的数据库，请选择其他数据库",
  },
  // Sync tasks (docs/sync.md)
  SyncTaskNotFound: { code: 4680, status: 400, value: "Sync task not found", en: "The sync task does not exist", zh: "同步任务不存在" },
  SyncTaskNameExists: { code: 4681, status: 400, value: "Sync task name exists", en: "A sync task with this name already exists", zh: "同名的同步任务已存在" },
  SyncTaskRunning: { code: 4682, status: 400, value: "Sync task running", en: "The sync task is running; stop it first", zh: "同步任务正在运行，请先停止" },
  SyncFoldersOverlap: {
    code: 4683,
    status: 400,
    value: "Sync folders overlap",
    en: "The source and the target are the same folder, or one is inside the other; choose separate folders",
    zh: "源目录与目标目录相同或相互包含，请选择互不包含的目录",
  },
  SyncOptionsConflict: {
    code: 4684,
    status: 400,
    value: "Sync options conflict",
    en: "Two-way sync cannot delete the source after each file; turn one of them off",
    zh: "双向同步不能同时启用“同步后删除源文件”，请关闭其中之一",
  },
  // Point to point (docs/p2p.md); 4700 up
  P2pNoSuchTransfer: { code: 4700, status: 400, value: "No such transfer", en: "The transfer does not exist or has ended", zh: "传输不存在或已结束" },
  P2pNoSuchDevice: { code: 4701, status: 400, value: "No such device", en: "The receiver's device ID does not exist", zh: "接收方设备 ID 不存在" },
  P2pDeviceBusy: { code: 4702, status: 400, value: "Device busy", en: "The receiver's device is already receiving from someone else; try again later", zh: "接收方设备正在接收其他传输，请稍后再试" },
  P2pRelayFull: { code: 4703, status: 400, value: "Relay full", en: "The server has no room to pass these files on now; try again later", zh: "服务器暂时没有空间中转这些文件，请稍后再试" },
  P2pOff: { code: 4704, status: 400, value: "P2P off", en: "Point-to-point sending is switched off on this server", zh: "此服务器已关闭点对点传输" },
  P2pStatusThrottled: {
    code: 4705,
    status: 429,
    value: "Too many device look-ups",
    en: "Too many device look-ups; try again in {{seconds}} s",
    zh: "设备查询过于频繁，请 {{seconds}} 秒后再试",
  },
  P2pHashMismatch: { code: 4706, status: 400, value: "Hash mismatch", en: "The received file differs from the one sent; it must be sent again", zh: "收到的文件与发送的文件不一致，需要重新发送" },
  P2pDeviceOffline: { code: 4707, status: 400, value: "Device offline", en: "The receiver's device is not receiving now", zh: "接收方设备当前未开启接收" },
  P2pHandOverOff: { code: 4708, status: 400, value: "Hand-over off", en: "Leaving files for an offline device is switched off on this server", zh: "此服务器不允许为离线设备暂存文件" },
  P2pTooLarge: { code: 4709, status: 400, value: "Transfer too large", en: "The files add up to more than {{max, size}}, the most one transfer may hold", zh: "文件总大小超过单次传输上限 {{max, size}}" },
  P2pWrongState: { code: 4710, status: 400, value: "Transfer not in that state", en: "The transfer is {{status}}; that cannot be done now", zh: "传输当前状态为 {{status}}，无法执行此操作" },
  P2pDirectOff: { code: 4711, status: 400, value: "Direct off", en: "Direct connections between browsers are switched off; the files go through the server", zh: "已禁止浏览器之间直接连接，文件将经服务器中转" },
  P2pSignalTooLarge: { code: 4712, status: 400, value: "Signal too large", en: "The signalling message is larger than {{max, size}}", zh: "信令消息超过 {{max, size}}" },
  P2pSignalThrottled: { code: 4713, status: 429, value: "Too many signals", en: "Too many signalling messages for this transfer; try again in a minute", zh: "此传输的信令消息过多，请一分钟后再试" },
  P2pNotRegistered: { code: 4714, status: 400, value: "Device not registered", en: "This connection has no device; register it first", zh: "此连接尚未注册设备，请先注册" },
  P2pOwnDevice: { code: 4715, status: 400, value: "Own device", en: "You cannot send to the device you are sending from", zh: "不能发送给本设备" },
  P2pSenderFull: { code: 4716, status: 400, value: "Too many open transfers", en: "You already have {{max}} transfers waiting or running; let one end first", zh: "您已有 {{max}} 个等待中或进行中的传输，请等其中之一结束后再发送" },
  P2pReceiverFull: { code: 4717, status: 400, value: "Receiver has too many transfers", en: "The receiver's device already has {{max}} transfers waiting; try again later", zh: "接收方设备已有 {{max}} 个等待中的传输，请稍后再试" },
  P2pNoPath: { code: 4718, status: 400, value: "No path allowed", en: "This server allows neither direct nor relayed sending", zh: "此服务器既不允许直接传输，也不允许经服务器中转" },
  P2pPathOff: { code: 4719, status: 400, value: "Path not allowed", en: "Sending by {{path}} is not allowed for this transfer", zh: "此传输不允许使用 {{path}} 方式发送" },
  P2pTooManyPathBytes: { code: 4720, status: 400, value: "Offer too long", en: "The names of the offered files add up to more than {{max, size}}; send fewer at a time", zh: "所发送文件的名称总长度超过 {{max, size}}，请分批发送" },
  // Storages (docs/admin-api.md, "Storages"); 4620 up
  StorageInUse: {
    code: 4620,
    status: 400,
    value: "Storage in use",
    en: "The storage still holds {{users}} user home(s) or virtual directories and {{groups}} group home(s); move them to another storage first",
    zh: "该存储仍有 {{users}} 个用户主目录或虚拟目录、{{groups}} 个群组主目录，请先将它们移到其他存储",
  },
  AutoCleanRunning: {
    code: 4621,
    status: 400,
    value: "Auto-clean running",
    en: "The storage's auto-clean is running on another Ferry server; wait for it to finish",
    zh: "该存储的自动清理正在另一台 Ferry 服务器上运行，请等待其完成",
  },
} as const satisfies Record<string, Omit<ErrorDef, "name">>;

export type ErrorName = keyof typeof catalogue;

const names = Object.keys(catalogue) as ErrorName[];

/** Name → numeric code, e.g. `ErrorCode.WrongPassword === 1005`. */
export const ErrorCode = Object.freeze(
  Object.fromEntries(names.map((name) => [name, catalogue[name].code])),
) as { readonly [K in ErrorName]: (typeof catalogue)[K]["code"] };

/** Every catalogue entry, with its name filled in, in catalogue order. */
export const errors: readonly ErrorDef[] = Object.freeze(
  names.map((name): ErrorDef => Object.freeze({ name, ...catalogue[name] })),
);

const byCode = new Map<number, ErrorDef>();
for (const def of errors) {
  const other = byCode.get(def.code);
  if (other) {
    throw new Error(`contract/errors: code ${def.code} is used by both ${other.name} and ${def.name}`);
  }
  byCode.set(def.code, def);
}

export function errorByCode(code: number): ErrorDef | undefined {
  return byCode.get(code);
}

/** The i18n key under which the web keeps the message for a code. */
export function errorMessageKey(code: number): string {
  return `error.${code}`;
}

/** The string and number fields of an error's `data`: the variables of its message; undefined when there are none. */
export function errorVars(data: unknown): Record<string, string | number> | undefined {
  if (!data || typeof data !== "object") return undefined;
  const vars = Object.fromEntries(Object.entries(data).filter(([, v]) => typeof v === "string" || typeof v === "number")) as Record<string, string | number>;
  return Object.keys(vars).length > 0 ? vars : undefined;
}

/**
 * The message in the given language (its `contexts` wording when `vars.context` names one) with `{{var}}` placeholders filled (`{{var, size}}` as a size,
 * contract/sizes.ts); unknown variables stay as they are.
 */
export function formatErrorMessage(def: ErrorDef, lang: "en" | "zh", vars?: Record<string, string | number>): string {
  const context = vars?.context;
  const text = (typeof context === "string" && def.contexts?.[context]?.[lang]) || def[lang];
  if (!vars) return text;
  return text.replace(/\{\{\s*(\w+)\s*(?:,\s*(\w+)\s*)?\}\}/g, (match, key: string, format: string | undefined) =>
    Object.prototype.hasOwnProperty.call(vars, key) ? String(formatValue(vars[key], format)) : match,
  );
}
