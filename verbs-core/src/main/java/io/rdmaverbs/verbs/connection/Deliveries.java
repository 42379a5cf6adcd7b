package io.rdmaverbs.verbs.connection;

import java.util.ArrayDeque;

/**
 * Hands a session's received messages to its handler executor in the order they arrived, though a large
 * one is ready only once its RDMA READs complete: a message waits behind every earlier one, so a small
 * message never overtakes a large one on the same connection. Each arrival takes its place with
 * {@link #reserve()} on the completion loop's thread, in arrival order; {@link #ready} hands over the
 * places that are ready at the head.
 */
final class Deliveries {

    /** One arrival's place in line. */
    static final class Place {
        private Runnable dispatch;
        private boolean ready;
    }

    private final ArrayDeque<Place> line = new ArrayDeque<>();

    synchronized Place reserve() {
        Place p = new Place();
        line.add(p);
        return p;
    }

    /**
     * {@code place} is ready to be dispatched by {@code dispatch}: it runs, with every ready place after
     * it, once every earlier one ran. Dispatches run under this object's lock, in order: they must only
     * hand the message to an executor.
     */
    synchronized void ready(Place place, Runnable dispatch) {
        place.dispatch = dispatch;
        place.ready = true;
        while (!line.isEmpty() && line.peekFirst().ready) {
            line.pollFirst().dispatch.run();
        }
    }

    /** A place whose message will never come (its transfer failed): the line moves on without it. */
    void skip(Place place) {
        ready(place, () -> { });
    }

    synchronized int waiting() {
        return line.size();
    }
}
