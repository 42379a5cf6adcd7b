/**
 * Spring Boot auto-configuration of RDMA verbs resources: the {@code rdma.verbs} properties, the
 * provider and the {@link io.rdmaverbs.verbs.Verbs} graph. The subpackages hold, one concern each, the
 * declared resource beans, the teardown, async events, the circuit breakers, health, the actuator
 * endpoint, metrics, failure analysis and test support.
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
