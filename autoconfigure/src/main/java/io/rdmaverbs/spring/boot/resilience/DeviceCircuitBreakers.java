package io.rdmaverbs.spring.boot.resilience;

import java.util.Optional;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.rdmaverbs.verbs.AsyncEvent;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.VerbsListener;
import io.rdmaverbs.verbs.VerbsResource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One Resilience4j circuit breaker per device context, named {@code rdma-verbs-<context name>} (the
 * context name is its key under {@code rdma.verbs.devices}). The device's async events drive it: a
 * {@code DEVICE_FATAL} forces it open for good (the context must be reopened), a {@code PORT_ERR} opens
 * it and a {@code PORT_ACTIVE} closes it again. Decorate device-level calls with it to fail fast:
 *
 * <pre>{@code
 * CircuitBreaker breaker = breakers.forContext(ctx);
 * breaker.executeRunnable(() -> qp.postSend(request));
 * }</pre>
 *
 * <p>The breakers live in a registry of their own, never a bean: an application that also uses
 * resilience4j's Spring Boot module keeps its own {@code CircuitBreakerRegistry}, configured by its
 * {@code resilience4j.circuitbreaker.*} properties, and neither registry sees the other's breakers.
 */
public final class DeviceCircuitBreakers implements VerbsListener {

    /** The prefix of every breaker's name. */
    public static final String NAME_PREFIX = "rdma-verbs-";

    private static final Log logger = LogFactory.getLog(DeviceCircuitBreakers.class);

    private final CircuitBreakerRegistry registry;
    private final CircuitBreakerConfig config;

    public DeviceCircuitBreakers(CircuitBreakerConfig config) {
        this.registry = CircuitBreakerRegistry.of(config);
        this.config = config;
    }

    /** The registry of the device breakers only, e.g. to bind its metrics. */
    public CircuitBreakerRegistry registry() {
        return registry;
    }

    /** The breaker of {@code context}. */
    public CircuitBreaker forContext(DeviceContext context) {
        return forContext(context.name());
    }

    /** The breaker of the device context named {@code contextName}, created on first use. */
    public CircuitBreaker forContext(String contextName) {
        return registry.circuitBreaker(NAME_PREFIX + contextName, config);
    }

    /** The breaker of the context named {@code contextName}, if one was created. */
    public Optional<CircuitBreaker> find(String contextName) {
        return registry.find(NAME_PREFIX + contextName);
    }

    /** The state of the breaker of the context named {@code contextName} (CLOSED, OPEN, FORCED_OPEN...). */
    public Optional<String> stateOf(String contextName) {
        return find(contextName).map(breaker -> breaker.getState().name());
    }

    @Override
    public void created(VerbsResource resource) {
        if (resource instanceof DeviceContext context) {
            forContext(context);
        }
    }

    @Override
    public void asyncEvent(AsyncEvent event) {
        CircuitBreaker breaker = forContext(event.context().name());
        CircuitBreaker.State state = breaker.getState();
        switch (event.type()) {
            case DEVICE_FATAL -> breaker.transitionToForcedOpenState();
            case PORT_ERR -> {
                if (state == CircuitBreaker.State.CLOSED || state == CircuitBreaker.State.HALF_OPEN) {
                    breaker.transitionToOpenState();
                }
            }
            case PORT_ACTIVE -> {
                if (state == CircuitBreaker.State.OPEN || state == CircuitBreaker.State.HALF_OPEN) {
                    breaker.transitionToClosedState();
                }
            }
            default -> {
                return;
            }
        }
        if (breaker.getState() != state) {
            logger.info("RDMA verbs: circuit breaker " + breaker.getName() + " " + state + " -> " + breaker.getState()
                    + " on " + event);
        }
    }
}
