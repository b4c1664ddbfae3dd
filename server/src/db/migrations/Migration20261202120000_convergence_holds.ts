import { Migration } from '@mikro-orm/migrations';

/**
 * A rollout records the environment version of its latest audited change (`step_version`), and a
 * step that holds from convergence waits for the fleet (`awaiting_convergence_until`, its
 * deadline) and pauses with reason `convergence` when it times out. Rollouts already live were
 * written before versions were recorded: null until their next change. A rollback is watched
 * until the fleet serves it (`rolled_back_at`, `rollback_watch_until`), and what was seen is
 * recorded (`rollback_convergence`).
 */
export class Migration20261202120000_convergence_holds extends Migration {

  override up(): void {
    this.addSql(`alter table "rollouts" drop constraint if exists "rollouts_paused_reason_check";`);
    this.addSql(`alter table "rollouts" add column "step_version" int null, add column "awaiting_convergence_until" timestamptz null;`);
    this.addSql(`alter table "rollouts" add constraint "rollouts_paused_reason_check" check("paused_reason" in ('user', 'approval_gate', 'auto_rollback', 'guard', 'convergence'));`);
    this.addSql(`create index "rollouts_convergence_wait_index" on "rollouts" ("awaiting_convergence_until") where "status" = 'active' and "awaiting_convergence_until" is not null;`);
    this.addSql(`alter table "rollouts" add column "rolled_back_at" timestamptz null, add column "rollback_watch_until" timestamptz null, add column "rollback_convergence" jsonb null;`);
    this.addSql(`create index "rollouts_rollback_watch_index" on "rollouts" ("rollback_watch_until") where "rollback_watch_until" is not null;`);
  }

  override down(): void {
    this.addSql(`drop index if exists "rollouts_rollback_watch_index";`);
    this.addSql(`alter table "rollouts" drop column "rolled_back_at", drop column "rollback_watch_until", drop column "rollback_convergence";`);
    this.addSql(`drop index if exists "rollouts_convergence_wait_index";`);
    this.addSql(`alter table "rollouts" drop constraint if exists "rollouts_paused_reason_check";`);
    this.addSql(`alter table "rollouts" drop column "step_version", drop column "awaiting_convergence_until";`);
    this.addSql(`alter table "rollouts" add constraint "rollouts_paused_reason_check" check("paused_reason" in ('user', 'approval_gate', 'auto_rollback', 'guard'));`);
  }

}
