import { describeOnPostgres } from './support/postgres-only.ts';
import { startCluster } from './support/cluster.ts';
import { clusterGuarantees } from './support/cluster-guarantees.ts';

describeOnPostgres('three instances on one PostgreSQL database', 'several instances share one database only on a PostgreSQL server', () => {
  clusterGuarantees((env) => startCluster(3, env));
});
