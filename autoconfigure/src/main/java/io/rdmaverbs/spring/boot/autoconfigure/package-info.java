/**
 * Spring Boot auto-configuration of RDMA verbs resources: the {@code rdma.verbs} properties, the
 * provider and the {@link io.rdmaverbs.verbs.Verbs} graph, wiring the declared resource beans
 * ({@code io.rdmaverbs.spring.boot.resources}) and the teardown ({@code io.rdmaverbs.spring.boot.teardown}).
 * The subpackages hold, one concern each, async events, the circuit breakers, health, the actuator
 * endpoint, metrics, failure analysis and test support.
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
