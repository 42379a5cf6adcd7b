package io.rdmaverbs.sample.exchange;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsResource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * Leases taken on purpose, so a user can watch a stuck reference in health and in {@code /actuator/verbs}
 * and see what the shutdown does with it: wait for it to be released within the teardown timeout, then
 * revoke it (cascade) or leave the resource open and report the holder (strict).
 */
@Service
public class Borrowers {

    private static final Logger log = LoggerFactory.getLogger(Borrowers.class);

    private final Verbs verbs;
    private final List<Lease> held = new CopyOnWriteArrayList<>();

    public Borrowers(Verbs verbs) {
        this.verbs = verbs;
    }

    /** Takes a lease on the resource named {@code resource} for {@code holder}. */
    public Lease borrow(String resource, String holder) {
        VerbsResource target = verbs.resources().stream().filter(r -> r.name().equals(resource)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no resource named '" + resource + "'; resources: "
                        + verbs.resources().stream().map(VerbsResource::name).toList()));
        Lease lease = target.lease(holder);
        held.add(lease);
        log.info("{} took a lease on {}", holder, target);
        return lease;
    }

    /** Releases every lease taken here; returns how many were still held. */
    public int releaseAll() {
        int released = 0;
        for (Lease lease : held) {
            if (lease.isHeld()) {
                released++;
            }
            lease.close();
        }
        held.clear();
        return released;
    }

    public List<Lease> leases() {
        return List.copyOf(held);
    }
}
