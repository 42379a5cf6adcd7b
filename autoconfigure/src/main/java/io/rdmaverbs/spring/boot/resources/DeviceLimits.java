package io.rdmaverbs.spring.boot.resources;

import java.util.ArrayList;
import java.util.List;

import io.rdmaverbs.spring.boot.resources.Declarations.Device;
import io.rdmaverbs.spring.boot.resources.DeviceLimitsExceededException.Violation;
import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.QpType;

/**
 * The declared values of one device measured against what the opened device reports, so that a
 * startup fails naming every property over its limit instead of one EINVAL from the first verb.
 */
final class DeviceLimits {

    private DeviceLimits() {
    }

    static List<Violation> violations(String deviceKey, Device device, DeviceAttributes a) {
        String path = Declarations.devicePath(deviceKey);
        List<Violation> out = new ArrayList<>();
        atMost(out, path + ".port", device.port(), a.physPortCount(), "phys_port_cnt");
        device.completionQueues().forEach((key, cq) -> {
            String p = path + ".completion-queues." + key;
            atMost(out, p + ".entries", cq.entries(), a.maxCqe(), "max_cqe");
            atMost(out, p + ".comp-vector", cq.compVector(), a.numCompVectors() - 1L, "num_comp_vectors - 1");
        });
        device.sharedReceiveQueues().forEach((key, srq) -> {
            String p = path + ".shared-receive-queues." + key;
            atMost(out, p + ".max-wr", srq.maxWr(), a.maxSrqWr(), "max_srq_wr");
            atMost(out, p + ".max-sge", srq.maxSge(), a.maxSrqSge(), "max_srq_sge");
            atMost(out, p + ".limit", srq.limit(), srq.maxWr(), "the SRQ's max-wr");
        });
        device.queuePairs().forEach((key, qp) -> {
            if (qp.type() == QpType.XRC_RECV) {
                return;
            }
            String p = path + ".queue-pairs." + key;
            atMost(out, p + ".max-send-wr", qp.maxSendWr(), a.maxQpWr(), "max_qp_wr");
            atMost(out, p + ".max-send-sge", qp.maxSendSge(), a.maxSge(), "max_sge");
            // A QP receiving through an SRQ has no receive queue of its own to size.
            if (qp.srq() == null && qp.type() != QpType.XRC_SEND) {
                atMost(out, p + ".max-recv-wr", qp.maxRecvWr(), a.maxQpWr(), "max_qp_wr");
                atMost(out, p + ".max-recv-sge", qp.maxRecvSge(), a.maxSge(), "max_sge");
            }
        });
        device.memoryRegions().forEach((key, mr) -> {
            long size = mr.size().toBytes();
            // max_mr_size is a uint64_t: rxe reports 2^64 - 1, which reads as -1 here.
            if (Long.compareUnsigned(size, a.maxMrSize()) > 0) {
                out.add(new Violation(path + ".memory-regions." + key + ".size", size, a.maxMrSize(), "max_mr_size"));
            }
        });
        return out;
    }

    private static void atMost(List<Violation> out, String property, long value, long limit, String limitName) {
        if (value > limit) {
            out.add(new Violation(property, value, limit, limitName));
        }
    }
}
