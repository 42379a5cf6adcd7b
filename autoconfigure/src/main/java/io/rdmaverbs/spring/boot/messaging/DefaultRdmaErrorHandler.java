package io.rdmaverbs.spring.boot.messaging;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Logs the failure (WARN, logger {@code io.rdmaverbs.spring.boot.messaging}, naming the listener, route,
 * endpoint and cause), then hands the message to the recoverer, if there is one; a recoverer's own
 * failure is logged too.
 */
public final class DefaultRdmaErrorHandler implements RdmaErrorHandler {

    private static final Log logger = LogFactory.getLog(RdmaErrorHandler.class.getPackageName());

    private final @Nullable RdmaMessageRecoverer recoverer;

    public DefaultRdmaErrorHandler(@Nullable RdmaMessageRecoverer recoverer) {
        this.recoverer = recoverer;
    }

    @Override
    public void handle(RdmaFailedMessage failed) {
        logger.warn("RDMA " + failed + " failed: " + failed.cause()
                + (recoverer == null ? "" : "; handing it to the recoverer"), failed.cause());
        if (recoverer != null) {
            try {
                recoverer.recover(failed);
            } catch (Exception e) {
                logger.error("RDMA message recoverer failed on the " + failed, e);
            }
        }
    }
}
