package io.rdmaverbs.spring.boot.events;

import io.rdmaverbs.verbs.AsyncEvent;
import io.rdmaverbs.verbs.VerbsListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.ApplicationEventPublisher;

/** Publishes each async event the graph reads as a {@link VerbsAsyncEvent}. */
public final class AsyncEventPublisher implements VerbsListener {

    private static final Log logger = LogFactory.getLog(AsyncEventPublisher.class);

    private final ApplicationEventPublisher publisher;

    public AsyncEventPublisher(ApplicationEventPublisher publisher) {
        this.publisher = publisher;
    }

    @Override
    public void asyncEvent(AsyncEvent event) {
        if (event.type().isFatal()) {
            logger.warn("RDMA verbs: " + event);
        } else if (logger.isDebugEnabled()) {
            logger.debug("RDMA verbs: " + event);
        }
        try {
            publisher.publishEvent(new VerbsAsyncEvent(event));
        } catch (RuntimeException e) {
            // A failing application listener must not stop the reader (VerbsListener must not throw).
            logger.error("RDMA verbs: a listener of " + event + " failed", e);
        }
    }
}
