import { describe, expect, it } from "vitest";
import { CHUNK_LEASE_MS } from "../../src/print/jobs/chunk";
import { jobTaskSchema } from "../../src/print/jobs/model";
import { taskId } from "../../src/print/jobs/queue";
import { overdue } from "../../src/print/jobs/reaper";

describe("print-job tasks", () => {
  it("name the same work alike (a second enqueue is refused) and a new round of it otherwise", () => {
    const chunk = { target: "tenants/acme-north/divisions/ops", jobId: "j1", chunk: 3 };
    expect(taskId(chunk)).toBe("tenants-acme-north-divisions-ops-j1-chunk-3");
    expect(taskId({ ...chunk })).toBe(taskId(chunk));
    expect(taskId({ ...chunk, round: 7 })).toBe("tenants-acme-north-divisions-ops-j1-chunk-3-r7");
    expect(taskId({ target: "tenants/acme-north", jobId: "j1", finish: true, round: 1 })).not.toBe(taskId({ target: "tenants/acme-north", jobId: "j1", finish: true, round: 2 }));
  });

  it("refuse a payload that is not a task of a target the pipeline could have built", () => {
    expect(jobTaskSchema.safeParse({ target: "tenants/acme-north", jobId: "j1", chunk: 0 }).success).toBe(true);
    expect(jobTaskSchema.safeParse({ target: "users/x", jobId: "j1", chunk: 0 }).success).toBe(false);
    expect(jobTaskSchema.safeParse({ target: "tenants/..", jobId: "j1", chunk: 0 }).success).toBe(false);
    expect(jobTaskSchema.safeParse({ target: "tenants/acme-north", jobId: "j1", chunk: 0, round: -1 }).success).toBe(false);
    expect(jobTaskSchema.safeParse({ target: "tenants/acme-north", jobId: "j1", chunk: 0, extra: 1 }).success).toBe(false);
  });

  it("call a job overdue (maybe stuck) once it has been active for longer than a chunk's lease", () => {
    const createdAt = { toMillis: () => 1_000_000 } as FirebaseFirestore.Timestamp;
    expect(overdue({ active: true, createdAt }, 1_000_000 + CHUNK_LEASE_MS)).toBe(false);
    expect(overdue({ active: true, createdAt }, 1_000_001 + CHUNK_LEASE_MS)).toBe(true);
    expect(overdue({ active: false, createdAt }, 1_000_001 + CHUNK_LEASE_MS)).toBe(false);
  });
});
