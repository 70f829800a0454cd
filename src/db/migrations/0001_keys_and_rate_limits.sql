CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"scopes" text[] NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "rate_limit_windows" (
	"name" text NOT NULL,
	"client" text NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"window_end" timestamp with time zone NOT NULL,
	"hits" integer NOT NULL,
	CONSTRAINT "rate_limit_windows_name_client_window_start_pk" PRIMARY KEY("name","client","window_start")
);
--> statement-breakpoint
CREATE INDEX "api_keys_created_at_id_idx" ON "api_keys" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "rate_limit_windows_window_end_idx" ON "rate_limit_windows" USING btree ("window_end");