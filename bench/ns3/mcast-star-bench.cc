// ns-3 multicast fan-out benchmark: one UDP CBR source (1 Mb/s, 1000-byte
// payloads) -> hub router -> R receivers on a star of point-to-point links,
// using ns-3's static IPv4 multicast routes (no multicast routing protocol,
// no congestion control).  Each receiver runs a UDP PacketSink on the group.
//
//   src --(100M,1ms)-- hub --(100M,1ms)-- rcv_0 .. rcv_{R-1}
//
// Build:
//   g++ -O2 -std=c++17 mcast-star-bench.cc -o mcast-star-bench
//     $(pkg-config --cflags --libs ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications)

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <chrono>
#include <iomanip>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    uint32_t nRcv = 1000;
    double simTime = 100.0;
    std::string rate = "1Mbps";
    uint32_t pktSize = 1000;
    std::string linkRate = "100Mbps";
    std::string linkDelay = "1ms";
    double lossProb = 0.0; // optional per-receiver-link random loss (RateErrorModel)

    CommandLine cmd(__FILE__);
    cmd.AddValue("nRcv", "number of receivers", nRcv);
    cmd.AddValue("simTime", "simulated seconds", simTime);
    cmd.AddValue("rate", "CBR rate", rate);
    cmd.AddValue("pktSize", "UDP payload bytes", pktSize);
    cmd.AddValue("lossProb", "packet error rate on each receiver link", lossProb);
    cmd.Parse(argc, argv);

    auto wall0 = std::chrono::steady_clock::now();

    NodeContainer src;
    src.Create(1);
    NodeContainer hub;
    hub.Create(1);
    NodeContainer rcv;
    rcv.Create(nRcv);

    InternetStackHelper stack;
    stack.Install(src);
    stack.Install(hub);
    stack.Install(rcv);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(linkRate));
    p2p.SetChannelAttribute("Delay", StringValue(linkDelay));
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("100p"));
    p2p.DisableFlowControl();

    Ipv4AddressHelper addr;
    NetDeviceContainer srcLink = p2p.Install(src.Get(0), hub.Get(0));
    addr.SetBase("10.0.0.0", "255.255.255.252");
    addr.Assign(srcLink);

    NetDeviceContainer hubOut;
    for (uint32_t i = 0; i < nRcv; ++i)
    {
        NetDeviceContainer l = p2p.Install(hub.Get(0), rcv.Get(i));
        // 10.1.0.0/16 .. split into /30s
        uint32_t base = (10u << 24) | (1u << 16) | (i * 4);
        addr.SetBase(Ipv4Address(base), "255.255.255.252");
        addr.Assign(l);
        hubOut.Add(l.Get(0));
        if (lossProb > 0)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetAttribute("ErrorRate", DoubleValue(lossProb));
            em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
            l.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
        }
    }

    Ipv4Address group("225.1.2.4");
    Ipv4Address srcAddr = src.Get(0)->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal();
    Ipv4StaticRoutingHelper mrouting;
    // hub: packets from src arriving on srcLink.Get(1) go out on every receiver link
    mrouting.AddMulticastRoute(hub.Get(0), srcAddr, group, srcLink.Get(1), hubOut);
    // source: default multicast route out of its only interface
    mrouting.SetDefaultMulticastRoute(src.Get(0), srcLink.Get(0));

    uint16_t port = 9;
    PacketSinkHelper sinkH("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinks = sinkH.Install(rcv);
    sinks.Start(Seconds(0.0));
    sinks.Stop(Seconds(simTime));

    OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(group, port));
    onoff.SetConstantRate(DataRate(rate), pktSize);
    ApplicationContainer srcApp = onoff.Install(src.Get(0));
    srcApp.Start(Seconds(0.0));
    srcApp.Stop(Seconds(simTime));

    auto wallSetup = std::chrono::steady_clock::now();
    Simulator::Stop(Seconds(simTime));
    Simulator::Run();
    auto wallRun = std::chrono::steady_clock::now();
    uint64_t events = Simulator::GetEventCount();

    uint64_t totalRx = 0, minRx = UINT64_MAX, maxRx = 0;
    for (uint32_t i = 0; i < sinks.GetN(); ++i)
    {
        uint64_t b = DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx();
        totalRx += b;
        minRx = std::min(minRx, b);
        maxRx = std::max(maxRx, b);
    }
    uint64_t deliveries = totalRx / pktSize;
    double setupS = std::chrono::duration<double>(wallSetup - wall0).count();
    double runS = std::chrono::duration<double>(wallRun - wallSetup).count();
    std::cout << std::setprecision(6) << "RESULT nRcv=" << nRcv << " simTime=" << simTime
              << " setup_s=" << setupS << " run_s=" << runS << " events=" << events
              << " events_per_s=" << events / runS << " deliveries=" << deliveries
              << " deliveries_per_s=" << deliveries / runS
              << " per_rcv_min_pkts=" << minRx / pktSize << " per_rcv_max_pkts=" << maxRx / pktSize
              << std::endl;
    Simulator::Destroy();
    return 0;
}
