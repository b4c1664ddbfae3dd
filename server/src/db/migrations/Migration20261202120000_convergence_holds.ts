import { Migration } from '@mikro-orm/migrations';

/**
 * A rollout records the environment version of its latest audited change (`step_version`), and a
 * step that holds from convergence waits for the fleet (`awaiting_convergence_until`, its
 * deadline) and pauses with reason `convergence` when it times out. Rollouts already live were
 * written before versions were recorded: null until their next change.
 */
export class Migration20261202120000_convergence_holds extends Migration {

  override up(): void {
    this.addSql(`alter table "rollouts" drop constraint if exists "rollouts_paused_reason_check";`);
    this.addSql(`alter table "rollouts" add column "step_version" int null, add column "awaiting_convergence_until" timestamptz null;`);
    this.addSql(`alter table "rollouts" add constraint "rollouts_paused_reason_check" check("paused_reason" in ('user', 'approval_gate', 'auto_rollback', 'guard', 'convergence'));`);
    this.addSql(`create index "rollouts_convergence_wait_index" on "rollouts" ("awaiting_convergence_until") where "status" = 'active' and "awaiting_convergence_until" is not null;`);
  }

  override down(): void {
    this.addSql(`drop index if exists "rollouts_convergence_wait_index";`);
    this.addSql(`alter table "rollouts" drop constraint if exists "rollouts_paused_reason_check";`);
    this.addSql(`alter table "rollouts" drop column "step_version", drop column "awaiting_convergence_until";`);
    this.addSql(`alter table "rollouts" add constraint "rollouts_paused_reason_check" check("paused_reason" in ('user', 'approval_gate', 'auto_rollback', 'guard'));`);
  }

}
