import { Migration } from '@mikro-orm/migrations';

/**
 * Guarded ramp steps: a rollout can be paused by its step's guard (`guard`), and it records when
 * its current step's hold began (a guarded step's analysis starts there). Rollouts already live
 * have no guard, so their unknown start stays null.
 */
export class Migration20261202030309_guarded_steps extends Migration {

  override up(): void {
    this.addSql(`alter table "rollouts" drop constraint if exists "rollouts_paused_reason_check";`);

    this.addSql(`alter table "rollouts" add column "step_started_at" timestamptz null;`);
    this.addSql(`alter table "rollouts" add constraint "rollouts_paused_reason_check" check("paused_reason" in ('user', 'approval_gate', 'auto_rollback', 'guard'));`);
  }

  override down(): void {
    this.addSql(`alter table "rollouts" drop constraint if exists "rollouts_paused_reason_check";`);

    this.addSql(`alter table "rollouts" drop column "step_started_at";`);

    this.addSql(`alter table "rollouts" add constraint "rollouts_paused_reason_check" check("paused_reason" in ('user', 'approval_gate', 'auto_rollback'));`);
  }

}
