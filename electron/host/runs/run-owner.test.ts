import { describe, expect, it } from "vitest";
import { claimSession, isProcessAlive, ownerIsGone, releaseSession } from "./run-owner.ts";

describe("ownerIsGone", () => {
  const self = claimSession();
  const other = { host: self.host, boot: self.boot, pid: self.pid + 1, session: "other" };
  const alive = () => true;
  const dead = () => false;

  it("keeps runs of stores open in this process", () => {
    const sibling = claimSession();
    expect(ownerIsGone(sibling, self, dead)).toBe(false);
    releaseSession(sibling);
    expect(ownerIsGone(sibling, self, alive)).toBe(true); // same pid, store closed
  });

  it("asks about another pid on this machine in this boot", () => {
    expect(ownerIsGone(other, self, alive)).toBe(false);
    expect(ownerIsGone(other, self, dead)).toBe(true);
  });

  it("treats another host, another boot, or no owner at all as gone", () => {
    expect(ownerIsGone({ ...other, host: "elsewhere" }, self, alive)).toBe(true);
    expect(ownerIsGone({ ...other, boot: self.boot - 3600 }, self, alive)).toBe(true);
    expect(ownerIsGone({ ...other, boot: self.boot - 30 }, self, alive)).toBe(false); // clock drift, same boot
    expect(ownerIsGone({}, self, alive)).toBe(true);
  });
});

describe("isProcessAlive", () => {
  it("is true for this process and false for a pid that cannot exist", () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(2 ** 22 + 12345)).toBe(false);
  });
});
