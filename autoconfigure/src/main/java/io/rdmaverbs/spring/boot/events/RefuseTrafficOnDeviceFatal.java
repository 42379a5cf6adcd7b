package io.rdmaverbs.spring.boot.events;

import io.rdmaverbs.verbs.AsyncEvent;
import io.rdmaverbs.verbs.VerbsListener;
import io.rdmaverbs.verbs.attr.AsyncEventType;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes the readiness state {@link ReadinessState#REFUSING_TRAFFIC} on a {@code DEVICE_FATAL} event:
 * the context stays unusable until it is closed and the device opened again (ibv_get_async_event(3)), so
 * a load balancer watching {@code /actuator/health/readiness} should stop sending requests. Liveness is
 * left alone: whether a restart is the cure is the application's call.
 */
public final class RefuseTrafficOnDeviceFatal implements VerbsListener {

    private static final Log logger = LogFactory.getLog(RefuseTrafficOnDeviceFatal.class);

    private final ApplicationEventPublisher publisher;

    public RefuseTrafficOnDeviceFatal(ApplicationEventPublisher publisher) {
        this.publisher = publisher;
    }

    @Override
    public void asyncEvent(AsyncEvent event) {
        if (event.type() == AsyncEventType.DEVICE_FATAL) {
            logger.warn("RDMA verbs: " + event.context() + " had a fatal event: readiness is now REFUSING_TRAFFIC");
            try {
                AvailabilityChangeEvent.publish(publisher, event, ReadinessState.REFUSING_TRAFFIC);
            } catch (RuntimeException e) {
                // VerbsListener must not throw: the reader thread goes on.
                logger.error("RDMA verbs: publishing REFUSING_TRAFFIC failed", e);
            }
        }
    }
}
