package io.rdmaverbs.verbs.connection;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.ResourceClosedException;
import io.rdmaverbs.verbs.error.VerbsException;

/**
 * Holds back the release of a connection that ended while its port is down, until the port is ACTIVE
 * again, a bound passes, or its owner stops. Releasing a connected CM id sends a disconnect request (DREQ)
 * through the device's GSI QP ({@code rdma_destroy_id(3)}); sent while the port is down it reaches nobody,
 * and on soft-RoCE (rdma_rxe) with Linux 6.12 the failed send leaves that GSI QP in the error state: the
 * device then sends no connection-manager message at all until it is re-created, so no connection could be
 * accepted or made on it again (docs/softroce.md, "Two kernels"). Sent once the port is back, the DREQ
 * reaches the other side, which is what it is for.
 *
 * <p>For the code that releases a connection whose session ended by itself, off the completion thread that
 * told it: {@code PortWait.untilActive(c, PortWait.BOUND, () -> stopping)}, then {@link Connection#close(Duration)}.
 * The wait gives up as soon as the connection's {@link Connections} closes: its shutdown releases everything
 * at once.
 */
public final class PortWait {

    /** How long a release waits for the port at most: a link that stays down longer gets its DREQ anyway. */
    public static final Duration BOUND = Duration.ofSeconds(30);
    private static final Duration STEP = Duration.ofMillis(100);

    private PortWait() {
    }

    /** How a wait ended. */
    public enum Outcome {
        /** The port is ACTIVE again. */
        ACTIVE,
        /** The bound passed with the port still down. */
        STILL_DOWN,
        /** The owner stops, or the connections close. */
        STOPPING,
        /** The waiting thread was interrupted (its status is kept). */
        INTERRUPTED,
        /** The port could no longer be asked ({@code ibv_query_port(3)} failed, or the context closed). */
        NOT_QUERYABLE
    }

    /**
     * A release that was held back.
     *
     * @param device the device of the connection's QP
     * @param port its port
     * @param waited how long the release was held back
     * @param outcome how the wait ended
     */
    public record Held(String device, int port, Duration waited, Outcome outcome) {

        /** {@code port 1 of rxe1 was down: released once it was ACTIVE again after 8445 ms}. */
        @Override
        public String toString() {
            return "port " + port + " of " + device + " was down: released once it was " + switch (outcome) {
                case ACTIVE -> "ACTIVE again after " + waited.toMillis() + " ms";
                case STILL_DOWN -> "still down after " + waited.toSeconds() + " s";
                case STOPPING -> "still down as it stops";
                case INTERRUPTED -> "still down when interrupted";
                case NOT_QUERYABLE -> "no longer queryable";
            };
        }
    }

    /**
     * Returns once the port of {@code connection}'s QP is ACTIVE (at once, normally), {@code giveUp} says so,
     * the connection's manager closes, the thread is interrupted, or {@code bound} has passed.
     *
     * @return the wait, when the port was down; empty when it was ACTIVE or could not be asked (the release
     *         then says what is wrong)
     */
    public static Optional<Held> untilActive(Connection connection, Duration bound, BooleanSupplier giveUp) {
        Objects.requireNonNull(bound, "bound");
        Objects.requireNonNull(giveUp, "giveUp");
        QueuePair qp = connection.queuePair();
        int port;
        String device;
        try {
            port = qp.query().port();
            device = qp.context().device().name();
            if (qp.context().queryPort(port).isActive()) {
                return Optional.empty();
            }
        } catch (VerbsException | ResourceClosedException e) {
            return Optional.empty();
        }
        long started = System.nanoTime();
        long deadline = started + bound.toNanos();
        Outcome outcome = Outcome.STILL_DOWN;
        while (System.nanoTime() < deadline) {
            try {
                Thread.sleep(STEP);
                if (giveUp.getAsBoolean() || connection.managerClosing()) {
                    outcome = Outcome.STOPPING;
                    break;
                }
                if (qp.context().queryPort(port).isActive()) {
                    outcome = Outcome.ACTIVE;
                    break;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                outcome = Outcome.INTERRUPTED;
                break;
            } catch (VerbsException | ResourceClosedException e) {
                outcome = Outcome.NOT_QUERYABLE;
                break;
            }
        }
        return Optional.of(new Held(device, port, Duration.ofNanos(System.nanoTime() - started), outcome));
    }
}
