ALTER TABLE "webhook_deliveries" ALTER COLUMN "event_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "target_host" text;--> statement-breakpoint
UPDATE "webhook_subscriptions" SET "target_host" = lower(substring("url" from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@]*@)?(\[[^]]*\]|[^:/?#]*)'));--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ALTER COLUMN "target_host" SET NOT NULL;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_created_idx" ON "webhook_deliveries" USING btree ("created_at");
