// Every entity, for MikroORM's `entities` option. Add new entities here.
import { ApiKeyEntity } from './api-key.js';
import { AuditEventEntity } from './audit-event.js';
import { EnvironmentEntity } from './environment.js';
import { MembershipEntity } from './membership.js';
import { OrgEntity } from './org.js';
import { PrimitiveStateEntity } from './primitive-state.js';
import { PrimitiveEntity } from './primitive.js';
import { ProjectEntity } from './project.js';
import { SessionEntity } from './session.js';
import { UserEntity } from './user.js';
import { RolloutEntity } from './rollout.js';
import { RolloutPlanEntity } from './rollout-plan.js';
import { RolloutSpareTargetListEntity, RolloutTargetIdEntity } from './rollout-target-id.js';
import { RolloutMigrationWarningEntity } from './rollout-migration-warning.js';
import { RollbackFireEntity, RollbackSecretEntity } from './rollback.js';
import { InvitationEntity, MagicLinkEntity, ProposalEntity } from './onboarding.js';
import { SegmentEntity, SegmentSpareTargetListEntity } from './segment.js';
import { WebhookDeliveryEntity, WebhookSubscriptionEntity } from './webhook.js';
import { CodeReferenceReportEntity, UsageBudgetEntity, UsageHourEntity } from './usage.js';
import { GuardMetricEntity, GuardSampleEntity } from './guard-metric.js';
import { SdkInstanceEntity, SdkInstanceVersionEntity } from './sdk-instance.js';

export * from './api-key.js';
export * from './audit-event.js';
export type { JsonValue } from './common.js';
export * from './environment.js';
export * from './membership.js';
export * from './org.js';
export * from './primitive-state.js';
export * from './primitive.js';
export * from './project.js';
export * from './session.js';
export * from './user.js';
export * from './rollout.js';
export * from './rollout-plan.js';
export * from './rollout-target-id.js';
export * from './rollout-migration-warning.js';
export * from './rollback.js';
export * from './onboarding.js';
export * from './segment.js';
export * from './webhook.js';
export * from './usage.js';
export * from './guard-metric.js';
export * from './sdk-instance.js';

export const entities = [
  UserEntity,
  OrgEntity,
  MembershipEntity,
  SessionEntity,
  ApiKeyEntity,
  ProjectEntity,
  EnvironmentEntity,
  PrimitiveEntity,
  PrimitiveStateEntity,
  AuditEventEntity,
  RolloutEntity,
  RolloutPlanEntity,
  RolloutTargetIdEntity,
  RolloutSpareTargetListEntity,
  RolloutMigrationWarningEntity,
  RollbackSecretEntity,
  RollbackFireEntity,
  MagicLinkEntity,
  InvitationEntity,
  ProposalEntity,
  SegmentEntity,
  SegmentSpareTargetListEntity,
  WebhookSubscriptionEntity,
  WebhookDeliveryEntity,
  UsageHourEntity,
  UsageBudgetEntity,
  CodeReferenceReportEntity,
  GuardMetricEntity,
  GuardSampleEntity,
  SdkInstanceEntity,
  SdkInstanceVersionEntity,
];
