// ns-3 reference program for Convoy's simulator benchmark: the TCP dumbbell.
//
// Written against ns-3.37 as packaged by Debian bookworm (libns3-dev 3.37-2).
// Build with bench/ns3/build.sh, run all three sizes with bench/ns3/run.sh.
//
//   ./target/ns3/dumbbell --flows=N --seed=S [--run=R] [--time=100]
//
// Topology (all links are ns-3 PointToPoint links; every device has its own
// DropTailQueue<Packet> of 100 packets, and there is NO queue disc above it):
//
//   sender[0]   --+                                          +-- receiver[0]
//   sender[1]   --+-- left router ==(bottleneck)== right  ---+-- receiver[1]
//   ...           |                               router     |   ...
//   sender[N-1] --+                                          +-- receiver[N-1]
//
//   access links   : 100 Mbit/s, 1 ms propagation delay (one per host)
//   bottleneck     : 10 Mbit/s, 20 ms propagation delay
//   base RTT       : 2 * (1 + 20 + 1) ms = 44 ms propagation, plus
//                    serialisation (a 1042-byte frame takes 0.083 ms on an
//                    access link and 0.834 ms on the bottleneck)
//
// Traffic: flow i is a BulkSendApplication on sender[i] (SendSize 1000,
// MaxBytes 0 = unlimited) to a PacketSink on receiver[i]. Every flow starts at
// a time drawn uniformly from [0, 1) s with ns-3's own RNG (a
// UniformRandomVariable; RngSeedManager seeded with --seed and --run). Sinks
// start at t = 0. The simulation stops at --time seconds (default 100).
//
// Output: one line of JSON on stdout (see PrintJson below for every field).
// All counters are gathered with trace sinks; see the comments at the
// counters for exactly what each one counts.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cinttypes>
#include <ctime>
#include <cstdio>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

// ---------------------------------------------------------------------------
// Benchmark constants (from the benchmark spec). Changing any of them changes
// the benchmark; they are deliberately not command-line options.
// ---------------------------------------------------------------------------
const char* kAccessRate = "100Mbps";
const double kAccessDelayMs = 1.0;
const char* kBottleneckRate = "10Mbps";
const double kBottleneckRateBps = 10e6;
const double kBottleneckDelayMs = 20.0;
const char* kQueueSize = "100p"; // every device queue, bottleneck included
const uint32_t kSegmentSize = 1000; // TCP MSS (payload bytes per segment)
const uint32_t kInitialCwnd = 2;    // segments
const uint32_t kDelAckCount = 1;    // ACK every segment: no delayed ACKs
const double kMinRtoS = 0.2;
const uint32_t kAppSendSize = 1000; // bytes handed to the socket per Send()
const uint16_t kPort = 5000;

// ---------------------------------------------------------------------------
// Counters, filled in by trace sinks.
// ---------------------------------------------------------------------------

// Frames whose transmission finished (PointToPointNetDevice "PhyTxEnd") on
// any device of the topology, both directions, hosts and routers alike: every
// link traversal of every packet (data, ACK, SYN, FIN, retransmission) counts
// once. This is what "packets_forwarded" reports.
uint64_t g_txPacketsAllDevices = 0;

// The same, for the bottleneck device of the LEFT router only (the
// sender->receiver direction, which carries the data).
uint64_t g_bottleneckTxPackets = 0;
// Bytes of those frames as ns-3 sizes them on the wire: PPP header (2 bytes) +
// IPv4 header (20) + TCP header (20 + options) + payload. A full data segment
// is 2 + 20 + 20 + 1000 = 1042 bytes. ns-3's PointToPoint model has no other
// framing overhead (no flags, FCS or inter-frame gap: InterframeGap = 0).
uint64_t g_bottleneckTxBytes = 0;

// Packet drops. With no queue disc installed, ns-3.37's TrafficControlLayer
// hands a packet straight to the device, EXCEPT when the device's transmit
// queue is "stopped" (the NetDeviceQueueInterface stops it when the 100-packet
// DropTailQueue is full); then the packet is silently discarded without any
// trace. Such drops are therefore counted per device as
//   (packets IPv4 sent to the interface, Ipv4L3Protocol "Tx")
//   - (packets handed to the device, PointToPointNetDevice "MacTx", which
//      fires before the device enqueues)
// plus device-level queue overflows (MacTxDrop, normally 0).
struct DevCounters
{
    uint64_t ipTx = 0;
    uint64_t macTx = 0;
    uint64_t macTxDrop = 0;

    uint64_t Drops() const
    {
        return (ipTx > macTx ? ipTx - macTx : 0) + macTxDrop;
    }
};

// Counters of every device, by node id and then IPv4 interface index.
std::vector<std::vector<DevCounters>> g_dev;

void
OnPhyTxEndAny(Ptr<const Packet>)
{
    ++g_txPacketsAllDevices;
}

void
OnPhyTxEndBottleneck(Ptr<const Packet> p)
{
    ++g_bottleneckTxPackets;
    g_bottleneckTxBytes += p->GetSize();
}

void
OnMacTx(DevCounters* c, Ptr<const Packet>)
{
    ++c->macTx;
}

void
OnMacTxDrop(DevCounters* c, Ptr<const Packet>)
{
    ++c->macTxDrop;
}

void
OnIpTx(std::vector<DevCounters>* node, Ptr<const Packet>, Ptr<Ipv4>, uint32_t ifIndex)
{
    ++(*node)[ifIndex].ipTx;
}

DevCounters&
CountersOf(Ptr<NetDevice> d)
{
    Ptr<Ipv4> ipv4 = d->GetNode()->GetObject<Ipv4>();
    return g_dev[d->GetNode()->GetId()][ipv4->GetInterfaceForDevice(d)];
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t flows = 1;
    uint32_t seed = 1;
    uint64_t run = 1;
    double simTime = 100.0;
    std::string recovery = "prr";

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of TCP flows (senders = receivers = flows)", flows);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run number (substream)", run);
    cmd.AddValue("time", "simulated time in seconds", simTime);
    cmd.AddValue("recovery",
                 "TCP loss-recovery algorithm: prr (ns-3.37 default, TcpPrrRecovery) "
                 "or classic (TcpClassicRecovery)",
                 recovery);
    cmd.Parse(argc, argv);

    if (flows < 1 || simTime <= 0 || seed == 0)
    {
        std::fprintf(stderr, "dumbbell: need --flows >= 1, --time > 0, --seed >= 1\n");
        return 2;
    }
    if (recovery != "prr" && recovery != "classic")
    {
        std::fprintf(stderr, "dumbbell: --recovery must be prr or classic\n");
        return 2;
    }

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);

    // -----------------------------------------------------------------------
    // TCP configuration (Config::SetDefault, before any socket exists).
    // -----------------------------------------------------------------------
    // Congestion control: NewReno (ns-3.37's default is TcpCubic).
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    // Loss recovery. The spec says "NewReno (+SACK)" and names no recovery
    // algorithm, so by default we keep ns-3.37's default, TcpPrrRecovery
    // (Proportional Rate Reduction, RFC 6937), which is what a plain
    // "SocketType = TcpNewReno" setup gets; --recovery=classic selects
    // TcpClassicRecovery (cwnd = ssthresh on entering recovery, RFC 5681/6582
    // style). With SACK enabled, ns-3 detects losses and chooses what to
    // retransmit from the SACK scoreboard (RFC 6675) in both cases.
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(recovery == "prr" ? TcpPrrRecovery::GetTypeId()
                                                     : TcpClassicRecovery::GetTypeId()));
    // 1000-byte segments (ns-3 default: 536).
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kSegmentSize));
    // Initial window of 2 segments (ns-3.37 default: 10).
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(kInitialCwnd));
    // An ACK for every segment: DelAckCount 1 (ns-3 default: 2). The delayed
    // ACK timer (DelAckTimeout, 200 ms) then never matters for data.
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(kDelAckCount));
    // Nagle off (also ns-3's default); BulkSend writes 1000-byte chunks, which
    // equal the MSS, so Nagle would not change anything anyway.
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
    // No timestamp option (ns-3 default: on). RTT is then sampled from ACKs of
    // non-retransmitted segments (Karn).
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    // SACK on (also ns-3's default).
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    // Minimum RTO 0.2 s (ns-3 default: 1 s).
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(kMinRtoS)));
    // Everything else is left at ns-3.37's defaults and is part of the model:
    //   SndBufSize = RcvBufSize = 131072 bytes (so a flow's window is capped at
    //     ~131 segments by the receive window); WindowScaling on;
    //   InitialSlowStartThreshold = 2^32-1; ClockGranularity 1 ms;
    //   RTT estimator RttMeanDeviation (RFC 6298); initial RTO 1 s (ConnTimeout
    //   3 s for the SYN); ReTxThreshold 3 dup-ACKs; LimitedTransmit on; no ECN;
    //   no pacing; IPv4 checksums not computed.

    // -----------------------------------------------------------------------
    // Nodes and links.
    // -----------------------------------------------------------------------
    NodeContainer senders;
    NodeContainer receivers;
    NodeContainer routers;
    senders.Create(flows);
    receivers.Create(flows);
    routers.Create(2);
    Ptr<Node> leftRouter = routers.Get(0);
    Ptr<Node> rightRouter = routers.Get(1);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(kAccessRate));
    access.SetChannelAttribute("Delay", TimeValue(MilliSeconds(kAccessDelayMs)));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize(kQueueSize)));

    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(kBottleneckRate));
    bottleneck.SetChannelAttribute("Delay", TimeValue(MilliSeconds(kBottleneckDelayMs)));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>",
                        "MaxSize",
                        QueueSizeValue(QueueSize(kQueueSize)));

    std::vector<NetDeviceContainer> leftLinks(flows);
    std::vector<NetDeviceContainer> rightLinks(flows);
    for (uint32_t i = 0; i < flows; ++i)
    {
        leftLinks[i] = access.Install(senders.Get(i), leftRouter);
        rightLinks[i] = access.Install(rightRouter, receivers.Get(i));
    }
    NetDeviceContainer coreLink = bottleneck.Install(leftRouter, rightRouter);
    Ptr<NetDevice> bottleneckDev = coreLink.Get(0); // left router's side

    NetDeviceContainer allDevs;
    for (uint32_t i = 0; i < flows; ++i)
    {
        allDevs.Add(leftLinks[i]);
        allDevs.Add(rightLinks[i]);
    }
    allDevs.Add(coreLink);

    // -----------------------------------------------------------------------
    // IPv4, addresses, routes.
    // -----------------------------------------------------------------------
    InternetStackHelper stack;
    stack.Install(senders);
    stack.Install(receivers);
    stack.Install(routers);

    // One /30 per link, so any number of flows fits.
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    std::vector<Ipv4Address> receiverAddr(flows);
    for (uint32_t i = 0; i < flows; ++i)
    {
        addr.Assign(leftLinks[i]);
        addr.NewNetwork();
        Ipv4InterfaceContainer r = addr.Assign(rightLinks[i]);
        receiverAddr[i] = r.GetAddress(1);
        addr.NewNetwork();
    }
    addr.Assign(coreLink);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // "No queue discipline above the device queue". In ns-3.37,
    // Ipv4AddressHelper::Assign installs TrafficControlHelper::Default() (an
    // FqCoDel root queue disc) on every device it configures. Remove it again,
    // so the TrafficControlLayer passes packets directly to the device and the
    // PointToPointNetDevice's 100-packet DropTailQueue is the only queue on
    // every hop. (The TrafficControlLayer object itself cannot be removed from
    // the IPv4 stack in ns-3.37; without a root queue disc it is a
    // pass-through, see the drop accounting note at the top.)
    TrafficControlHelper tch;
    tch.Uninstall(allDevs);
    // Check it, and check the device queue sizes.
    for (uint32_t i = 0; i < allDevs.GetN(); ++i)
    {
        Ptr<NetDevice> d = allDevs.Get(i);
        Ptr<TrafficControlLayer> tc = d->GetNode()->GetObject<TrafficControlLayer>();
        if (tc && tc->GetRootQueueDiscOnDevice(d))
        {
            std::fprintf(stderr, "dumbbell: a queue disc is still installed\n");
            return 1;
        }
        Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(d);
        if (!p2p || p2p->GetQueue()->GetMaxSize() != QueueSize(kQueueSize))
        {
            std::fprintf(stderr, "dumbbell: unexpected device queue\n");
            return 1;
        }
    }

    // -----------------------------------------------------------------------
    // Applications.
    // -----------------------------------------------------------------------
    std::vector<Ptr<PacketSink>> sinks(flows);
    Ptr<UniformRandomVariable> startRv = CreateObject<UniformRandomVariable>();
    startRv->SetAttribute("Min", DoubleValue(0.0));
    startRv->SetAttribute("Max", DoubleValue(1.0));
    for (uint32_t i = 0; i < flows; ++i)
    {
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), kPort));
        ApplicationContainer sinkApp = sinkHelper.Install(receivers.Get(i));
        sinkApp.Start(Seconds(0.0));
        sinks[i] = DynamicCast<PacketSink>(sinkApp.Get(0));

        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(receiverAddr[i], kPort));
        src.SetAttribute("SendSize", UintegerValue(kAppSendSize));
        src.SetAttribute("MaxBytes", UintegerValue(0)); // unlimited
        ApplicationContainer srcApp = src.Install(senders.Get(i));
        srcApp.Start(Seconds(startRv->GetValue())); // uniform in [0, 1)
    }

    // -----------------------------------------------------------------------
    // Trace sinks for the counters.
    // -----------------------------------------------------------------------
    g_dev.resize(NodeList::GetNNodes());
    for (NodeList::Iterator n = NodeList::Begin(); n != NodeList::End(); ++n)
    {
        Ptr<Ipv4> ipv4 = (*n)->GetObject<Ipv4>();
        g_dev[(*n)->GetId()].resize(ipv4->GetNInterfaces());
        ipv4->TraceConnectWithoutContext("Tx",
                                         MakeBoundCallback(&OnIpTx, &g_dev[(*n)->GetId()]));
    }
    for (uint32_t i = 0; i < allDevs.GetN(); ++i)
    {
        Ptr<NetDevice> d = allDevs.Get(i);
        DevCounters* c = &CountersOf(d);
        d->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&OnPhyTxEndAny));
        d->TraceConnectWithoutContext("MacTx", MakeBoundCallback(&OnMacTx, c));
        d->TraceConnectWithoutContext("MacTxDrop", MakeBoundCallback(&OnMacTxDrop, c));
    }
    bottleneckDev->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&OnPhyTxEndBottleneck));

    // -----------------------------------------------------------------------
    // Run. Wall time covers Simulator::Run() only (not topology set-up).
    // -----------------------------------------------------------------------
    Simulator::Stop(Seconds(simTime));
    // cpu_s (CPU time of this process over the same interval, std::clock) is
    // reported too: on a machine shared with other jobs, wall_s includes time
    // spent waiting for a core, cpu_s does not.
    std::clock_t c0 = std::clock();
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t1 = std::chrono::steady_clock::now();
    std::clock_t c1 = std::clock();
    double wallS = std::chrono::duration<double>(t1 - t0).count();
    double cpuS = static_cast<double>(c1 - c0) / CLOCKS_PER_SEC;
    // Events executed by the simulator (ns-3.37's DefaultSimulatorImpl with
    // its default MapScheduler) during Run().
    uint64_t events = Simulator::GetEventCount();

    // -----------------------------------------------------------------------
    // Results.
    // -----------------------------------------------------------------------
    // Per-flow goodput: bytes delivered to the application (PacketSink
    // GetTotalRx, i.e. in-order TCP payload) * 8 / simulated time. The whole
    // run is the denominator, start-up included.
    std::vector<double> goodput(flows);
    double sum = 0;
    double sumSq = 0;
    for (uint32_t i = 0; i < flows; ++i)
    {
        goodput[i] = static_cast<double>(sinks[i]->GetTotalRx()) * 8.0 / simTime;
        sum += goodput[i];
        sumSq += goodput[i] * goodput[i];
    }
    // Jain's fairness index (sum x)^2 / (n * sum x^2) over those goodputs.
    double jain = sumSq > 0 ? (sum * sum) / (flows * sumSq) : 0.0;

    // Bottleneck utilisation: busy fraction of the left router's bottleneck
    // transmitter = bytes of frames whose transmission completed by the end of
    // the run (PPP + IPv4 + TCP headers + payload, as sized by ns-3) * 8 /
    // (10 Mbit/s * simulated time). A frame still being serialised at the stop
    // time is not counted. Because headers are counted, a link that is busy
    // all the time scores 1.0 while carrying 1000/1042 of that in TCP payload.
    double utilization = static_cast<double>(g_bottleneckTxBytes) * 8.0 /
                         (kBottleneckRateBps * simTime);

    uint64_t totalDrops = 0;
    for (uint32_t i = 0; i < allDevs.GetN(); ++i)
    {
        totalDrops += CountersOf(allDevs.Get(i)).Drops();
    }
    uint64_t bottleneckDrops = CountersOf(bottleneckDev).Drops();

    // The JSON line. The fields the benchmark spec asks for come first
    // (flows, sim_s, wall_s, events, packets_forwarded, utilization, jain,
    // goodput_bps); the rest are extra diagnostics:
    //   cpu_s              CPU time of Simulator::Run() (see above)
    //   bottleneck_packets frames transmitted by the left router's bottleneck
    //                      device (the numerator of utilization, in frames)
    //   bottleneck_drops   packets lost at that device's queue
    //   drops              packets lost at all device queues (hosts included)
    //   seed, run, recovery  the configuration used
    std::printf("{\"flows\": %u, \"sim_s\": %g, \"wall_s\": %.3f, \"events\": %" PRIu64
                ", \"packets_forwarded\": %" PRIu64 ", \"utilization\": %.4f, \"jain\": %.4f"
                ", \"goodput_bps\": [",
                flows,
                simTime,
                wallS,
                events,
                g_txPacketsAllDevices,
                utilization,
                jain);
    for (uint32_t i = 0; i < flows; ++i)
    {
        std::printf("%s%.0f", i ? ", " : "", goodput[i]);
    }
    std::printf("], \"cpu_s\": %.3f, \"bottleneck_packets\": %" PRIu64
                ", \"bottleneck_drops\": %" PRIu64 ", \"drops\": %" PRIu64
                ", \"seed\": %u, \"run\": %" PRIu64 ", \"recovery\": \"%s\"}\n",
                cpuS,
                g_bottleneckTxPackets,
                bottleneckDrops,
                totalDrops,
                seed,
                run,
                recovery.c_str());
    std::fflush(stdout);

    Simulator::Destroy();
    return 0;
}
