import type { OperationExamples } from '../../rpc/examples.js';

/** A request and its answer for each of the module's operations, shown in the API reference (checked against the schemas by test/examples.test.ts). */
export const examples: OperationExamples = {
  'sourcing.contract.completeContractMilestone': {
    "input": {
      "id": "gcm_01m8gf2q7n2cf9gaa26nxgnb6g"
    },
    "output": {
      "id": "gcm_01m8gf2q7n2cf9gaa26nxgnb6g",
      "contractId": "gc_01m8gf2py5n8y563sapa4r56vj",
      "contractNumber": "GC-2611-49",
      "kind": "payment",
      "dueAt": "2020-01-01T00:00:00.000Z",
      "notes": "payment note",
      "completedAt": "2026-11-28T06:56:59.469Z",
      "completedBy": "key_01m8gf2psjw1asmcsvff97753z",
      "sampleId": null,
      "overdue": false,
      "createdAt": "2026-11-28T06:56:58.611Z"
    }
  },
  'sourcing.contract.createContract': {
    "input": {
      "contractNumber": "GC-2611-11",
      "partnerId": "ptn_01m8gf2hngyxyrtrh4rf8dsyez",
      "priceType": "fixed",
      "incoterm": "FOB",
      "lines": [
        {
          "producerId": "pdr_01m8gf2hp1g6smh4e9n433by5x",
          "origin": "Ethiopia, Guji",
          "quality": "Grade 1 washed",
          "weightKg": "600",
          "pricePerKg": "5.5",
          "bagCount": 10,
          "bagWeightKg": "60"
        },
        {
          "origin": "Colombia, Huila",
          "quality": "Excelso EP",
          "weightKg": "400",
          "pricePerKg": "6.25"
        }
      ]
    },
    "output": {
      "id": "gc_01m8gf2hs84qmts30zpd7c7z24",
      "contractNumber": "GC-2611-11",
      "partnerId": "ptn_01m8gf2hngyxyrtrh4rf8dsyez",
      "currency": "USD",
      "priceType": "fixed",
      "incoterm": "FOB",
      "contractDate": null,
      "paymentTermsDays": null,
      "notes": null,
      "status": "draft",
      "statusChangedAt": "2026-11-28T06:56:53.019Z",
      "position": {
        "totalKg": "1000.000",
        "shippedKg": "0.000",
        "receivedKg": "0.000",
        "openKg": "1000.000",
        "unshippedKg": "1000.000",
        "fixedKg": "1000.000",
        "fixedValue": "5800.0000",
        "openFixedValue": "5800.0000"
      },
      "createdAt": "2026-11-28T06:56:53.019Z",
      "updatedAt": "2026-11-28T06:56:53.019Z",
      "lines": [
        {
          "id": "gcl_01m8gf2hs8xnxvcn1sd1zbbgzb",
          "lineNumber": 1,
          "producerId": "pdr_01m8gf2hp1g6smh4e9n433by5x",
          "origin": "Ethiopia, Guji",
          "quality": "Grade 1 washed",
          "processMethod": null,
          "harvestYear": null,
          "weightKg": "600.000",
          "pricePerKg": "5.5000",
          "differentialPerKg": null,
          "market": null,
          "fixationStatus": "fixed",
          "currency": "USD",
          "bagCount": 10,
          "bagWeightKg": "60.000",
          "receivedKg": "0.000",
          "openKg": "600.000"
        },
        {
          "id": "gcl_01m8gf2hs8888s2ghndmgggrav",
          "lineNumber": 2,
          "producerId": null,
          "origin": "Colombia, Huila",
          "quality": "Excelso EP",
          "processMethod": null,
          "harvestYear": null,
          "weightKg": "400.000",
          "pricePerKg": "6.2500",
          "differentialPerKg": null,
          "market": null,
          "fixationStatus": "fixed",
          "currency": "USD",
          "bagCount": null,
          "bagWeightKg": null,
          "receivedKg": "0.000",
          "openKg": "400.000"
        }
      ]
    }
  },
  'sourcing.contract.createContractMilestone': {
    "input": {
      "contractId": "gc_01m8gf2py5n8y563sapa4r56vj",
      "kind": "payment",
      "dueAt": "2020-01-01T00:00:00Z",
      "notes": "payment note"
    },
    "output": {
      "id": "gcm_01m8gf2q7n2cf9gaa26nxgnb6g",
      "contractId": "gc_01m8gf2py5n8y563sapa4r56vj",
      "contractNumber": "GC-2611-49",
      "kind": "payment",
      "dueAt": "2020-01-01T00:00:00.000Z",
      "notes": "payment note",
      "completedAt": null,
      "completedBy": null,
      "sampleId": null,
      "overdue": true,
      "createdAt": "2026-11-28T06:56:58.611Z"
    }
  },
  'sourcing.contract.createContractShipment': {
    "input": {
      "contractId": "gc_01m8gf2j4t6rz1wqdkhvebfz09",
      "reference": "S-A",
      "weightKg": "700",
      "vessel": "MSC Aurora",
      "containerNumber": "MSCU1234567",
      "etd": "2026-12-01",
      "eta": "2027-01-10"
    },
    "output": {
      "id": "gcs_01m8gf2jxg716n9jkwe9jkfvj0",
      "contractId": "gc_01m8gf2j4t6rz1wqdkhvebfz09",
      "reference": "S-A",
      "weightKg": "700.000",
      "vessel": "MSC Aurora",
      "carrier": null,
      "containerNumber": "MSCU1234567",
      "portOfLoading": null,
      "portOfDischarge": null,
      "etd": "2026-12-01",
      "eta": "2027-01-10",
      "destinationLocationId": null,
      "status": "booked",
      "receivedAt": null,
      "receivedKg": null,
      "lots": [],
      "createdAt": "2026-11-28T06:56:54.177Z"
    }
  },
  'sourcing.contract.getContract': {
    "input": {
      "id": "gc_01m8gf2f2sgfbky7zq2jqnxr3w"
    },
    "output": {
      "id": "gc_01m8gf2f2sgfbky7zq2jqnxr3w",
      "contractNumber": "GC-DERIVE-1",
      "partnerId": "ptn_01m8gf2edk74dqq4gjcjhwsphn",
      "currency": "EUR",
      "priceType": "differential",
      "incoterm": "FOB",
      "contractDate": "2026-11-01",
      "paymentTermsDays": 30,
      "notes": null,
      "status": "draft",
      "statusChangedAt": "2026-11-28T06:56:50.225Z",
      "position": {
        "totalKg": "2000.500",
        "shippedKg": "0.000",
        "receivedKg": "0.000",
        "openKg": "2000.500",
        "unshippedKg": "2000.500",
        "fixedKg": "1200.500",
        "fixedValue": "7323.0500",
        "openFixedValue": "7323.0500"
      },
      "createdAt": "2026-11-28T06:56:50.225Z",
      "updatedAt": "2026-11-28T06:56:50.225Z",
      "lines": [
        {
          "id": "gcl_01m8gf2f2sakmz29m9mdp0x08v",
          "lineNumber": 1,
          "producerId": "pdr_01m8gf2etd0abx4f001880qmyb",
          "origin": "Ethiopia, Guji",
          "quality": "G1",
          "processMethod": null,
          "harvestYear": null,
          "weightKg": "1200.500",
          "pricePerKg": "6.1000",
          "differentialPerKg": "0.8500",
          "market": "ICE KC",
          "fixationStatus": "fixed",
          "currency": "EUR",
          "bagCount": null,
          "bagWeightKg": null,
          "receivedKg": "0.000",
          "openKg": "1200.500"
        },
        {
          "id": "gcl_01m8gf2f2sgqscgc7kb6mj0np3",
          "lineNumber": 2,
          "producerId": null,
          "origin": "Kenya, Nyeri",
          "quality": "AA",
          "processMethod": null,
          "harvestYear": null,
          "weightKg": "800.000",
          "pricePerKg": null,
          "differentialPerKg": "-0.1000",
          "market": "ICE KC",
          "fixationStatus": "unfixed",
          "currency": "EUR",
          "bagCount": 13,
          "bagWeightKg": "60.000",
          "receivedKg": "0.000",
          "openKg": "800.000"
        }
      ]
    }
  },
  'sourcing.contract.listContractMilestones': {
    "input": {
      "filter": {}
    },
    "output": {
      "items": [
        {
          "id": "gcm_01m8gf2q7n2cf9gaa26nxgnb6g",
          "contractId": "gc_01m8gf2py5n8y563sapa4r56vj",
          "contractNumber": "GC-2611-49",
          "kind": "payment",
          "dueAt": "2020-01-01T00:00:00.000Z",
          "notes": "payment note",
          "completedAt": null,
          "completedBy": null,
          "sampleId": null,
          "overdue": true,
          "createdAt": "2026-11-28T06:56:58.611Z"
        },
        {
          "id": "gcm_01m8gf2qbfyge17bw91k9q9gsh",
          "contractId": "gc_01m8gf2q6bvn70c84vtff9amwf",
          "contractNumber": "GC-2611-52",
          "kind": "sample_approval",
          "dueAt": "2098-01-01T00:00:00.000Z",
          "notes": "sample_approval note",
          "completedAt": null,
          "completedBy": null,
          "sampleId": null,
          "overdue": false,
          "createdAt": "2026-11-28T06:56:58.733Z"
        },
        {
          "id": "gcm_01m8gf2q90ycj4vsdevz08mw27",
          "contractId": "gc_01m8gf2q6bvn70c84vtff9amwf",
          "contractNumber": "GC-2611-52",
          "kind": "vessel_departure",
          "dueAt": "2099-01-01T00:00:00.000Z",
          "notes": "vessel_departure note",
          "completedAt": null,
          "completedBy": null,
          "sampleId": null,
          "overdue": false,
          "createdAt": "2026-11-28T06:56:58.633Z"
        }
      ],
      "nextCursor": null,
      "truncated": false
    }
  },
  'sourcing.contract.listContractShipments': {
    "input": {
      "filter": {
        "contractId": "gc_01m8gf2j4t6rz1wqdkhvebfz09"
      },
      "page": {
        "limit": 1,
        "cursor": "WyJncmVlbl9jb250cmFjdF9zaGlwbWVudHMiLCJnY3NfMDFtOGdmMmp4ZzcxNm45amt3ZTlqa2Z2ajAiXQ.Hm7tR2xK9bQw4nVe1sJc8A"
      }
    },
    "output": {
      "items": [
        {
          "id": "gcs_01m8gf2k2p3c8dt91w6eh45emb",
          "contractId": "gc_01m8gf2j4t6rz1wqdkhvebfz09",
          "reference": "S-B",
          "weightKg": "300.000",
          "vessel": null,
          "carrier": null,
          "containerNumber": null,
          "portOfLoading": null,
          "portOfDischarge": null,
          "etd": null,
          "eta": null,
          "destinationLocationId": null,
          "status": "booked",
          "receivedAt": null,
          "receivedKg": null,
          "lots": [],
          "createdAt": "2026-11-28T06:56:54.351Z"
        }
      ],
      "nextCursor": null
    }
  },
  'sourcing.contract.listContracts': {
    "input": {
      "filter": {
        "open": true
      }
    },
    "output": {
      "items": [
        {
          "id": "gc_01m8gf2rvjty9trk2xn7bke3g9",
          "contractNumber": "GC-2611-58",
          "partnerId": "ptn_01m8gf2rt1wgpwvp5tay5cgx82",
          "currency": "USD",
          "priceType": "fixed",
          "incoterm": "FOB",
          "contractDate": null,
          "paymentTermsDays": null,
          "notes": null,
          "status": "partially_shipped",
          "statusChangedAt": "2026-11-28T06:57:00.552Z",
          "position": {
            "totalKg": "1000.000",
            "shippedKg": "600.000",
            "receivedKg": "500.000",
            "openKg": "500.000",
            "unshippedKg": "400.000",
            "fixedKg": "1000.000",
            "fixedValue": "5800.0000",
            "openFixedValue": "3050.0000"
          },
          "createdAt": "2026-11-28T06:57:00.270Z",
          "updatedAt": "2026-11-28T06:57:00.613Z"
        }
      ],
      "nextCursor": null
    }
  },
  'sourcing.contract.listOpenPositions': {
    "input": {},
    "output": {
      "contracts": [],
      "byOrigin": [],
      "totals": {
        "contracts": 0,
        "openKg": "0.000",
        "byCurrency": []
      }
    }
  },
  'sourcing.contract.receiveContractShipment': {
    "input": {
      "shipmentId": "gcs_01m8gf2kn6p70h442sebm3h9xa",
      "lines": [
        {
          "contractLineId": "gcl_01m8gf2kd99gxrwpx5mpj89j4s",
          "lotCode": "LOT-2611-22",
          "weightKg": "598.4",
          "freight": "120",
          "duty": "30.5"
        },
        {
          "contractLineId": "gcl_01m8gf2kd93tzpcrfgcbs76ah8",
          "lotCode": "LOT-2611-23",
          "weightKg": "400",
          "name": "Huila Excelso",
          "carry": "12"
        }
      ]
    },
    "output": {
      "shipment": {
        "id": "gcs_01m8gf2kn6p70h442sebm3h9xa",
        "contractId": "gc_01m8gf2kd9ysgg8n8j2rr4bq3s",
        "reference": "SHIP-2611-21",
        "weightKg": "1000.000",
        "vessel": null,
        "carrier": null,
        "containerNumber": null,
        "portOfLoading": null,
        "portOfDischarge": null,
        "etd": null,
        "eta": null,
        "destinationLocationId": "loc_01m8gf2km6jmbprvsz07hynqe9",
        "status": "received",
        "receivedAt": "2026-11-28T06:56:55.117Z",
        "receivedKg": "998.400",
        "lots": [
          {
            "contractLineId": "gcl_01m8gf2kd99gxrwpx5mpj89j4s",
            "greenLotId": "gl_01m8gf2kvkpegk07ff2zgpqfkm",
            "weightKg": "598.400"
          },
          {
            "contractLineId": "gcl_01m8gf2kd93tzpcrfgcbs76ah8",
            "greenLotId": "gl_01m8gf2kvka05jvmvhtw9nqchk",
            "weightKg": "400.000"
          }
        ],
        "createdAt": "2026-11-28T06:56:54.948Z"
      },
      "contract": {
        "id": "gc_01m8gf2kd9ysgg8n8j2rr4bq3s",
        "contractNumber": "GC-2611-20",
        "partnerId": "ptn_01m8gf2k6vp740c1zzeegz88ng",
        "currency": "USD",
        "priceType": "fixed",
        "incoterm": "FOB",
        "contractDate": null,
        "paymentTermsDays": null,
        "notes": null,
        "status": "arrived",
        "statusChangedAt": "2026-11-28T06:56:55.117Z",
        "position": {
          "totalKg": "1000.000",
          "shippedKg": "1000.000",
          "receivedKg": "998.400",
          "openKg": "1.600",
          "unshippedKg": "0.000",
          "fixedKg": "1000.000",
          "fixedValue": "5800.0000",
          "openFixedValue": "8.8000"
        },
        "createdAt": "2026-11-28T06:56:54.630Z",
        "updatedAt": "2026-11-28T06:56:55.117Z"
      },
      "lots": [
        {
          "id": "gl_01m8gf2kvkpegk07ff2zgpqfkm",
          "lotCode": "LOT-2611-22",
          "name": "Ethiopia, Guji (GC-2611-20/1)",
          "supplierRef": "GC-2611-20",
          "producerId": "pdr_01m8gf2k7tv2r4sktjes0jm994",
          "partnerId": "ptn_01m8gf2k6vp740c1zzeegz88ng",
          "state": "green",
          "varieties": [],
          "processMethod": null,
          "harvestYear": null,
          "certifications": [],
          "bagCount": 10,
          "bagWeightKg": "60.000",
          "unitCost": "5.5000",
          "currency": "USD",
          "minWeightKg": null,
          "notes": null,
          "quarantined": false,
          "quarantineReason": null,
          "quarantine": null,
          "onHandKg": "598.400",
          "reservedKg": "0.000",
          "availableKg": "598.400",
          "openingKg": "598.400",
          "landedCost": {
            "version": 1,
            "currency": "USD",
            "buckets": {
              "price": "3291.2000",
              "freight": "120.0000",
              "duty": "30.5000",
              "carry": "0.0000",
              "other": "0.0000"
            },
            "total": "3441.7000",
            "perKg": "5.7515",
            "weightBasisKg": "598.400",
            "updatedAt": "2026-11-28T06:56:55.117Z"
          },
          "createdAt": "2026-11-28T06:56:55.117Z",
          "updatedAt": "2026-11-28T06:56:55.117Z",
          "balances": [
            {
              "locationId": "loc_01m8gf2km6jmbprvsz07hynqe9",
              "locationCode": "WH-EAST",
              "locationName": "East warehouse",
              "onHandKg": "598.400",
              "updatedAt": "2026-11-28T06:56:55.117Z"
            }
          ]
        },
        {
          "id": "gl_01m8gf2kvka05jvmvhtw9nqchk",
          "lotCode": "LOT-2611-23",
          "name": "Huila Excelso",
          "supplierRef": "GC-2611-20",
          "producerId": null,
          "partnerId": "ptn_01m8gf2k6vp740c1zzeegz88ng",
          "state": "green",
          "varieties": [],
          "processMethod": null,
          "harvestYear": null,
          "certifications": [],
          "bagCount": null,
          "bagWeightKg": null,
          "unitCost": "6.2500",
          "currency": "USD",
          "minWeightKg": null,
          "notes": null,
          "quarantined": false,
          "quarantineReason": null,
          "quarantine": null,
          "onHandKg": "400.000",
          "reservedKg": "0.000",
          "availableKg": "400.000",
          "openingKg": "400.000",
          "landedCost": {
            "version": 1,
            "currency": "USD",
            "buckets": {
              "price": "2500.0000",
              "freight": "0.0000",
              "duty": "0.0000",
              "carry": "12.0000",
              "other": "0.0000"
            },
            "total": "2512.0000",
            "perKg": "6.2800",
            "weightBasisKg": "400.000",
            "updatedAt": "2026-11-28T06:56:55.117Z"
          },
          "createdAt": "2026-11-28T06:56:55.117Z",
          "updatedAt": "2026-11-28T06:56:55.117Z",
          "balances": [
            {
              "locationId": "loc_01m8gf2km6jmbprvsz07hynqe9",
              "locationCode": "WH-EAST",
              "locationName": "East warehouse",
              "onHandKg": "400.000",
              "updatedAt": "2026-11-28T06:56:55.117Z"
            }
          ]
        }
      ]
    }
  },
  'sourcing.contract.updateContractStatus': {
    "input": {
      "id": "gc_01m8gf2gvxfj16cyfes3mhf5bj",
      "status": "pending"
    },
    "output": {
      "id": "gc_01m8gf2gvxfj16cyfes3mhf5bj",
      "contractNumber": "GC-2611-8",
      "partnerId": "ptn_01m8gf2gszv815dj1xy2dt29dz",
      "currency": "USD",
      "priceType": "fixed",
      "incoterm": "FOB",
      "contractDate": null,
      "paymentTermsDays": null,
      "notes": null,
      "status": "pending",
      "statusChangedAt": "2026-11-28T06:56:52.491Z",
      "position": {
        "totalKg": "1000.000",
        "shippedKg": "0.000",
        "receivedKg": "0.000",
        "openKg": "1000.000",
        "unshippedKg": "1000.000",
        "fixedKg": "1000.000",
        "fixedValue": "5800.0000",
        "openFixedValue": "5800.0000"
      },
      "createdAt": "2026-11-28T06:56:52.082Z",
      "updatedAt": "2026-11-28T06:56:52.491Z"
    }
  },
  'sourcing.sample.createSample': {
    "input": {
      "sampleNumber": "S-2611-2",
      "name": "Sample 2",
      "sampleType": "offer",
      "trackingNumbers": [
        "OLD-1",
        "OLD-2"
      ]
    },
    "output": {
      "id": "smp_01m8gf3sbyff57hcnchngd5erf",
      "sampleNumber": "S-2611-2",
      "name": "Sample 2",
      "sampleType": "offer",
      "partnerId": null,
      "producerId": null,
      "contractId": null,
      "contractLineId": null,
      "poNumber": null,
      "salesNumber": null,
      "trackingNumbers": [
        "OLD-1",
        "OLD-2"
      ],
      "weightKg": null,
      "dueAt": null,
      "status": "requested",
      "statusChangedAt": "2026-11-28T06:57:33.565Z",
      "decision": null,
      "decisionAt": null,
      "decisionNotes": null,
      "greenLotId": null,
      "transferredAt": null,
      "createdAt": "2026-11-28T06:57:33.565Z",
      "updatedAt": "2026-11-28T06:57:33.565Z"
    }
  },
  'sourcing.sample.getSample': {
    "input": {
      "id": "smp_01m8gf3p1tv22ry1k3y7dt5hd9"
    },
    "output": {
      "id": "smp_01m8gf3p1tv22ry1k3y7dt5hd9",
      "sampleNumber": "PSS-1",
      "name": "Guji pre-shipment",
      "sampleType": "pre_shipment",
      "partnerId": "ptn_01m8gf3jhvskpn813j28rgzn5v",
      "producerId": "pdr_01m8gf3jxbekgp5rkvxct1h70w",
      "contractId": "gc_01m8gf3kcawd4kf3w9c9v3enkc",
      "contractLineId": "gcl_01m8gf3kcayb35492ttjwx64zp",
      "poNumber": "PO-7",
      "salesNumber": null,
      "trackingNumbers": [
        "1Z999"
      ],
      "weightKg": "0.300",
      "dueAt": "2026-12-01T00:00:00.000Z",
      "status": "requested",
      "statusChangedAt": "2026-11-28T06:57:30.152Z",
      "decision": null,
      "decisionAt": null,
      "decisionNotes": null,
      "greenLotId": null,
      "transferredAt": null,
      "createdAt": "2026-11-28T06:57:30.152Z",
      "updatedAt": "2026-11-28T06:57:30.152Z"
    }
  },
  'sourcing.sample.listSamples': {
    "input": {
      "filter": {
        "partnerId": "ptn_01m8gf3s4ap6n7t9d65dcq7jtg",
        "sampleType": "offer"
      }
    },
    "output": {
      "items": [
        {
          "id": "smp_01m8gf3s88cvrcmcbzbbz70t4f",
          "sampleNumber": "S-2611-1",
          "name": "Sample 1",
          "sampleType": "offer",
          "partnerId": "ptn_01m8gf3s4ap6n7t9d65dcq7jtg",
          "producerId": "pdr_01m8gf3s7anejfr6kywewhhaa4",
          "contractId": null,
          "contractLineId": null,
          "poNumber": null,
          "salesNumber": null,
          "trackingNumbers": [],
          "weightKg": null,
          "dueAt": null,
          "status": "requested",
          "statusChangedAt": "2026-11-28T06:57:33.440Z",
          "decision": null,
          "decisionAt": null,
          "decisionNotes": null,
          "greenLotId": null,
          "transferredAt": null,
          "createdAt": "2026-11-28T06:57:33.440Z",
          "updatedAt": "2026-11-28T06:57:33.440Z"
        }
      ],
      "nextCursor": null
    }
  },
  'sourcing.sample.transferSampleToInventory': {
    "input": {
      "id": "smp_01m8gf3v4hvegerd39rhr06z9y",
      "lotCode": "SMP-LOT-1",
      "weightKg": "2.5",
      "locationId": "loc_01m8gf3v10zfkj8kqg6e3yqn07"
    },
    "output": {
      "sample": {
        "id": "smp_01m8gf3v4hvegerd39rhr06z9y",
        "sampleNumber": "S-2611-4",
        "name": "Guji arrival",
        "sampleType": "arrival",
        "partnerId": "ptn_01m8gf3tcv64c0ww3e8ap9m2jp",
        "producerId": "pdr_01m8gf3tgwfcxvas00ym2sdkm9",
        "contractId": "gc_01m8gf3tjz38my2g2n3cb66dst",
        "contractLineId": "gcl_01m8gf3tjzxthzxvczwbhwkxy4",
        "poNumber": null,
        "salesNumber": null,
        "trackingNumbers": [],
        "weightKg": "2.500",
        "dueAt": null,
        "status": "received",
        "statusChangedAt": "2026-11-28T06:57:35.790Z",
        "decision": null,
        "decisionAt": null,
        "decisionNotes": null,
        "greenLotId": "gl_01m8gf3w10rcvhkzw6arcapkva",
        "transferredAt": "2026-11-28T06:57:36.280Z",
        "createdAt": "2026-11-28T06:57:35.330Z",
        "updatedAt": "2026-11-28T06:57:36.280Z"
      },
      "lot": {
        "id": "gl_01m8gf3w10rcvhkzw6arcapkva",
        "lotCode": "SMP-LOT-1",
        "name": "Guji arrival",
        "supplierRef": "S-2611-4",
        "producerId": "pdr_01m8gf3tgwfcxvas00ym2sdkm9",
        "partnerId": "ptn_01m8gf3tcv64c0ww3e8ap9m2jp",
        "state": "green",
        "varieties": [],
        "processMethod": null,
        "harvestYear": null,
        "certifications": [],
        "bagCount": null,
        "bagWeightKg": null,
        "unitCost": null,
        "currency": null,
        "minWeightKg": null,
        "notes": "from arrival sample S-2611-4",
        "quarantined": false,
        "quarantineReason": null,
        "quarantine": null,
        "onHandKg": "2.500",
        "reservedKg": "0.000",
        "availableKg": "2.500",
        "openingKg": "2.500",
        "landedCost": null,
        "createdAt": "2026-11-28T06:57:36.280Z",
        "updatedAt": "2026-11-28T06:57:36.280Z",
        "balances": [
          {
            "locationId": "loc_01m8gf3v10zfkj8kqg6e3yqn07",
            "locationCode": "QC-LAB",
            "locationName": "Cupping lab",
            "onHandKg": "2.500",
            "updatedAt": "2026-11-28T06:57:36.280Z"
          }
        ]
      }
    }
  },
  'sourcing.sample.updateSampleStatus': {
    "input": {
      "id": "smp_01m8gf3sbyff57hcnchngd5erf",
      "status": "approved",
      "decisionNotes": "Clean, sweet, 86.5"
    },
    "output": {
      "id": "smp_01m8gf3sbyff57hcnchngd5erf",
      "sampleNumber": "S-2611-2",
      "name": "Sample 2",
      "sampleType": "offer",
      "partnerId": null,
      "producerId": null,
      "contractId": null,
      "contractLineId": null,
      "poNumber": null,
      "salesNumber": null,
      "trackingNumbers": [
        "NEW-9"
      ],
      "weightKg": null,
      "dueAt": null,
      "status": "approved",
      "statusChangedAt": "2026-11-28T06:57:34.400Z",
      "decision": "approved",
      "decisionAt": "2026-11-28T06:57:34.400Z",
      "decisionNotes": "Clean, sweet, 86.5",
      "greenLotId": null,
      "transferredAt": null,
      "createdAt": "2026-11-28T06:57:33.565Z",
      "updatedAt": "2026-11-28T06:57:34.400Z"
    }
  },
};
