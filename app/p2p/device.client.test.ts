import { beforeEach, describe, expect, it } from "vitest";
import { DEVICE_IDS_STORAGE, DEVICE_KEY_STORAGE, deviceKey, P2P_FILES_STORAGE, rememberedIds, rememberReceiver, storedFileGroup, storeFileGroup } from "./device.client";
import { groupOf } from "./file-group";

describe("device storage", () => {
  beforeEach(() => window.localStorage.clear());

  it("keeps one device key per account in __P2P_DEVICE_KEY__", () => {
    const alice = deviceKey("alice");
    expect(alice).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(deviceKey("alice")).toBe(alice);
    const bob = deviceKey("bob");
    expect(bob).not.toBe(alice);
    expect(JSON.parse(window.localStorage.getItem(DEVICE_KEY_STORAGE)!)).toEqual({ alice, bob });
  });

  it("makes a new key when the stored one is not a key", () => {
    window.localStorage.setItem(DEVICE_KEY_STORAGE, JSON.stringify({ alice: "short" }));
    expect(deviceKey("alice")).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("remembers receiver ids in __DEVICE_IDS__, most recent first", () => {
    rememberReceiver("111111111");
    rememberReceiver("222222222");
    expect(rememberReceiver("111111111")).toEqual(["111111111", "222222222"]);
    expect(JSON.parse(window.localStorage.getItem(DEVICE_IDS_STORAGE)!)).toEqual(["111111111", "222222222"]);
    expect(rememberedIds()).toEqual(["111111111", "222222222"]);
  });

  it("keeps the picked list in __P2P_FILES__ as the spec's file group, and removes it when empty", () => {
    const group = groupOf([{ name: "a.txt", file_size: 3, file_type: 0, source: "local" }]);
    storeFileGroup(group);
    expect(JSON.parse(window.localStorage.getItem(P2P_FILES_STORAGE)!)).toMatchObject({ list: [{ name: "a.txt", file_size: 3, file_type: 0 }], size: 3, fileCount: 1, folderCount: 0 });
    expect(storedFileGroup()).toEqual(group);
    storeFileGroup(groupOf([]));
    expect(window.localStorage.getItem(P2P_FILES_STORAGE)).toBeNull();
  });
});
