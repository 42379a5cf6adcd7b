package io.rdmaverbs.spring.boot.connections;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.ResourceClosedException;
import io.rdmaverbs.verbs.error.VerbsException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Holds back the release of a connection that ended while its port is down, until the port is ACTIVE
 * again, a bound passes, or the owner stops. Releasing a connected CM id sends a disconnect request
 * (DREQ) through the device's GSI QP ({@code rdma_destroy_id(3)}); sent while the port is down it
 * reaches nobody, and on soft-RoCE (rdma_rxe, Linux 6.12) the failed send leaves that GSI QP in the
 * error state: the device then sends no connection-manager message at all until it is re-created, so
 * no connection could be accepted or made on it again (docs/softroce.md, "Two kernels"). Sent once the
 * port is back, the DREQ reaches the other side, which is what it is for.
 */
final class PortWait {

    private static final Log logger = LogFactory.getLog(PortWait.class.getPackageName());

    /** How long a release waits for the port at most: a link that stays down longer gets it anyway. */
    static final Duration BOUND = Duration.ofSeconds(30);
    private static final Duration STEP = Duration.ofMillis(100);

    private PortWait() {
    }

    /**
     * Returns once the port of {@code session}'s QP is ACTIVE (at once, normally), {@code giveUp} says
     * so, the thread is interrupted (its status kept), or {@link #BOUND} has passed; a wait is logged
     * (INFO) with how it ended.
     *
     * @param owner whose connection it is, for the line: {@code RDMA listener 'echo' connection from ...}
     * @return whether the port was down when this was called
     */
    static boolean untilActive(String owner, RdmaSession session, BooleanSupplier giveUp) {
        QueuePair qp = session.connection().queuePair();
        int port;
        try {
            port = qp.query().port();
            if (qp.context().queryPort(port).isActive()) {
                return false;
            }
        } catch (VerbsException | ResourceClosedException e) {
            return false; // nothing to ask: the release says what is wrong
        }
        long started = System.nanoTime();
        long deadline = started + BOUND.toNanos();
        String outcome = "still down after " + BOUND.toSeconds() + " s";
        while (System.nanoTime() < deadline) {
            try {
                Thread.sleep(STEP);
                if (giveUp.getAsBoolean()) {
                    outcome = "still down as it stops";
                    break;
                }
                if (qp.context().queryPort(port).isActive()) {
                    outcome = "ACTIVE again after " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms";
                    break;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                outcome = "still down when interrupted";
                break;
            } catch (VerbsException | ResourceClosedException e) {
                outcome = "not queryable (" + e.getMessage() + ")";
                break;
            }
        }
        logger.info(owner + " ended while port " + port + " of " + qp.context().device().name()
                + " was down: released once it was " + outcome);
        return true;
    }
}
