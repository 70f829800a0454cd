CREATE TABLE "events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"type" text NOT NULL,
	"data" json NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_records" (
	"client" text NOT NULL,
	"key" text NOT NULL,
	"claim" uuid NOT NULL,
	"fingerprint" text NOT NULL,
	"state" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone,
	"response_status" integer,
	"response_headers" jsonb,
	"response_body" text,
	CONSTRAINT "idempotency_records_client_key_pk" PRIMARY KEY("client","key")
);
--> statement-breakpoint
CREATE TABLE "scores" (
	"id" uuid PRIMARY KEY NOT NULL,
	"game" text NOT NULL,
	"initials" text NOT NULL,
	"value" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "events_created_at_idx" ON "events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "idempotency_records_started_at_idx" ON "idempotency_records" USING btree ("started_at");--> statement-breakpoint
CREATE INDEX "scores_game_value_created_at_idx" ON "scores" USING btree ("game","value","created_at");